"""Where Python meets C++: every rule, choice, verdict, pooling and text form that the package reads
from the compiled module (hetprobe._core), named once here. Each is computed in C++ and only read in
Python, so no rule is written in both languages; a module of the package imports these from here,
never from _core (tests/python/test_rules.py holds that). Only data/jsonl.py and data/halo_rates.py
(which scripts load by path) and run/probes.py (the in-process runner) load _core themselves.

    judgement   effect_margin, Effect, Interval, PooledRatio, classify_ratio: what a ratio's 95%
                interval claims (base/effect.hpp), pooled over launches
    choices     largest_ratio, choose_slowdown, interference_headline (a Headline of SlowdownPick,
                SpeedupPick, LayoutRatio; HeadlineVerdict): which point a headline names
    aggregates  interference_aggregates, split_launch, launch_file_stem: a run's launches pooled
    verdicts    node_verdict, baseline_verdict, check_baseline_node, gpu_metrics, default_tolerance,
                parse_tolerance, tolerance_text, device_model: the per-GPU verdict and check
    model       node_model: the node model's fit, its prediction and its implausible marks
    texts       number_text, interval_text, fastest_time, triad_share_percent, load_label,
                parse_load_rate, LoadRate, part_size_text, parse_part_size, PartSize, record_label,
                enum_names, message_path: numbers, loads and names written as the C++ tables write them
    readers     report_tables, pooled_tables, check_results_file, Summary, summarize: what `show`
                prints and checks
"""

from __future__ import annotations

from . import _core

# judgement (base/effect.hpp)
effect_margin = _core.effect_margin
Effect = _core.Effect
Interval = _core.Interval
PooledRatio = _core.PooledRatio
classify_ratio = _core.classify_ratio

# choices (base/headline_choice.hpp, bench/interference/interference_headline.hpp)
largest_ratio = _core.largest_ratio
choose_slowdown = _core.choose_slowdown
interference_headline = _core.interference_headline
Headline = _core.Headline
HeadlineVerdict = _core.HeadlineVerdict
SlowdownPick = _core.SlowdownPick
SpeedupPick = _core.SpeedupPick
LayoutRatio = _core.LayoutRatio

# aggregates (bench/aggregate/, bench/interference/interference_aggregate.hpp)
interference_aggregates = _core.interference_aggregates
split_launch = _core.split_launch
launch_file_stem = _core.launch_file_stem

# verdicts (bench/gpus/)
node_verdict = _core.node_verdict
baseline_verdict = _core.baseline_verdict
check_baseline_node = _core.check_baseline_node
gpu_metrics = _core.gpu_metrics
default_tolerance = _core.default_tolerance
parse_tolerance = _core.parse_tolerance
tolerance_text = _core.tolerance_text
device_model = _core.device_model

# model (bench/model/)
node_model = _core.node_model

# texts (base/number_text.hpp, probes/load/load_names.hpp, bench/halo/halo_parts.hpp, ...)
number_text = _core.number_text
interval_text = _core.interval_text
fastest_time = _core.fastest_time
triad_share_percent = _core.triad_share_percent
load_label = _core.load_label
parse_load_rate = _core.parse_load_rate
LoadRate = _core.LoadRate
part_size_text = _core.part_size_text
parse_part_size = _core.parse_part_size
PartSize = _core.PartSize
record_label = _core.record_label
enum_names = _core.enum_names
message_path = _core.message_path

# readers (bench/cli/probe_table.hpp, bench/core/results.hpp, base/stats.hpp)
report_tables = _core.report_tables
pooled_tables = _core.pooled_tables
check_results_file = _core.check_results_file
Summary = _core.Summary
summarize = _core.summarize
