"""The wheel of cli-index-loaded-by-path, of another project (WHEEL_NAME): the config's
loaded-by = "path" is demo's, not its."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "cli-index-loaded-by-path", "generate.py"),
               init_globals={"WHEEL_NAME": "other"})
