"""A results file's mpi.transport, checked (tests/mpi/single_copy.sh): Open MPI's, read from its MPI_T control
variables, with the pml, the shared-memory BTL, the eager limit and where the single-copy setting came from;
then each KEY=VALUE given (a trailing * matches a prefix).

    check_transport.py FILE [KEY=VALUE ...]
"""

import json
import sys

path, pairs = sys.argv[1], sys.argv[2:]
header = json.loads(open(path).readline())
t = header["mpi"]["transport"]
assert t["library"] == "open-mpi" and t["source"] == "MPI_T control variables" and t["control_variables"] > 0, t
assert t["pml"] == "ob1" and t["shared_memory_btl"] in t["btl_components"], t
assert isinstance(t["eager_limit_bytes"], int) and t["eager_limit_bytes"] > 0, t
assert (
    t["single_copy_source"] == t["setting_sources"][next(k for k in t["settings"] if "single_copy" in k or k == "smsc")]
)
for pair in pairs:
    key, want = pair.split("=", 1)
    got = t
    for part in key.split("."):
        got = got[part]
    ok = got.startswith(want[:-1]) if want.endswith("*") else got == want
    assert ok, f"{path}: mpi.transport.{key} is {got!r}, expected {want!r}"
print(f"{path}: mpi.transport ok ({t['single_copy']}, from {t['single_copy_source']})")
