"""A minimal ReFrame site configuration: this machine as system "local", a generic one with one
partition "default" that runs jobs here (local scheduler, local launcher) and an environment
"plain" (the shell's as it is). Output, stage and the run report go where --prefix, -o, -s and
--report-file say; results storage stays off (ReFrame's default)."""

site_configuration = {
    "systems": [
        {
            "name": "local",
            "descr": "This machine: jobs run here, no scheduler",
            "hostnames": [".*"],
            "partitions": [
                {
                    "name": "default",
                    "descr": "The local node",
                    "scheduler": "local",
                    "launcher": "local",
                    "environs": ["plain"],
                }
            ],
        }
    ],
    "environments": [{"name": "plain", "cc": "cc", "cxx": "", "ftn": ""}],
    "logging": [
        {
            "level": "debug",
            "handlers": [{"type": "stream", "name": "stdout", "level": "info", "format": "%(message)s"}],
            "handlers_perflog": [],
        }
    ],
}
