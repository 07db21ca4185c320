"""verstehen: does a language model understand a subject, or only pass the benchmark?

    import verstehen as vs
    result = vs.certify("local/smollm2-135m", "arithmetic/small", questions=8)
    print(result.verdict, result.run_dir)
"""

__version__ = "0.1.0"

from verstehen.api import *  # noqa: F403  (the API is the package's face)
from verstehen.api import __all__ as _api

__all__ = ["__version__", *_api]
