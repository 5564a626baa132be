/* tests/emu/graph.cpp: stream capture and CUDA graphs for tests/emu.
 *
 * Between cudaStreamBeginCapture and cudaStreamEndCapture a launch is not
 * run but recorded (sv_emu_run asks sv_emu_capture); a graph is the list of
 * its launches, and cudaGraphLaunch runs them in order. A call that waits
 * fails while a capture is open (cudaErrorStreamCaptureUnsupported), as on
 * a GPU; so do copies and memsets, which a GPU would record as nodes of
 * their own: this stand-in records kernels only. One stream captures at a
 * time. */
#include <functional>
#include <vector>
#include "cuda_runtime.h"

struct sv_emu_graph {
    std::vector<std::function<void()>> launches;
};

static sv_emu_graph *capturing = nullptr; /* the open capture's graph, or none */

bool sv_emu_capture(const std::function<void()> &launch)
{
    if (!capturing)
        return false;
    capturing->launches.push_back(launch);
    return true;
}

extern "C" int sv_emu_capturing(void)
{
    return capturing != nullptr;
}

extern "C" cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    (void)mode;
    if (!stream || capturing)
        return cudaErrorInvalidValue;
    capturing = new sv_emu_graph;
    return cudaSuccess;
}

extern "C" cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    if (!stream || !capturing)
        return cudaErrorInvalidValue;
    *graph = capturing;
    capturing = nullptr;
    return cudaSuccess;
}

extern "C" cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                            unsigned long long flags)
{
    (void)flags;
    *exec = new sv_emu_graph(*graph);
    return cudaSuccess;
}

extern "C" cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    (void)stream;
    if (capturing)
        return cudaErrorStreamCaptureUnsupported;
    for (const std::function<void()> &launch : exec->launches)
        launch();
    return cudaSuccess;
}

extern "C" cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    delete graph;
    return cudaSuccess;
}

extern "C" cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    delete exec;
    return cudaSuccess;
}
