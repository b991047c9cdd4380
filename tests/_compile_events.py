"""The start of a script run in a new process that records which kernels Numba compiles
(imported as ``_compile_events``: pytest puts this folder on the path). A kernel loaded
from the cache is not compiled, and raises no event; the script's own lines append to
``compiled``'s qualified names."""

COUNT_COMPILATIONS = """
from numba.core import event

compiled = []


class Count(event.Listener):
    def on_start(self, e):
        compiled.append(e.data["dispatcher"].py_func.__qualname__)

    def on_end(self, e):
        pass


event.register("numba:compile", Count())
"""
