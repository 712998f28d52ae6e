"""Running probes and the main job: the probes from Python (probes: in this process, or under mpirun
or srun), `hetprobe characterize` (characterize, its command; presets: the steps and their options;
launch: the node's devices and each step's launch; manifest: characterize.json; step_options: the
probes' own check of their options) and the progress lines of a long run (progress)."""
