# rewrite_launches.cmake -DIN=kernel.cu -DOUT=kernel.cpp: a CUDA source as
# host C++ for tests/emu: every `k<<<grid, block, smem, stream>>>(args)`
# becomes `SV_EMU_LAUNCH(k, grid, block, smem, stream)(args)` (one launch per
# line, as kernels/ writes them). The rest is compiled unchanged.
file(READ "${IN}" src)
string(REGEX REPLACE "([A-Za-z_][A-Za-z0-9_]*(<[A-Za-z0-9_]+>)?)<<<([^\n]*)>>>\\("
       "SV_EMU_LAUNCH(\\1, \\3)(" src "${src}")
file(WRITE "${OUT}" "// generated from ${IN} by tests/emu/rewrite_launches.cmake\n${src}")
