"""``python -m testing.llama_serve …``: llama-cpp-python's OpenAI-compatible
server (``llama_cpp.server``, same arguments) with llama.cpp's extra CPU
buffer types turned off.

Those buffer types repack the weights for the CPU's widest units; on a CPU
that reports Intel AMX inside a virtual machine that does not enable its
tile state, the AMX kernels die of SIGILL on the first token (seen here:
"trap invalid opcode … tilezero" in libggml-cpu). The plain CPU kernels
answer the same requests. llama-cpp-python's server has no option for it, so
the model's default parameters are set before the server builds its model.
"""

from __future__ import annotations

import llama_cpp.llama_cpp as low_level

_defaults = low_level.llama_model_default_params


def _without_extra_buffer_types():
    params = _defaults()
    params.use_extra_bufts = False
    return params


low_level.llama_model_default_params = _without_extra_buffer_types

if __name__ == "__main__":
    from llama_cpp.server.__main__ import main

    main()
