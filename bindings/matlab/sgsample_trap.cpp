// sgsample_trap.cpp: the C++ part of the MEX gateway. It exists for Ctrl-C.
//
// Under GNU Octave a Ctrl-C becomes a C++ exception (octave::interrupt_exception) at the next
// interrupt check, and almost all of a run's time is spent in the user's callback, so that is
// where it is thrown. It is not an error: M-code try/catch and mexCallMATLABWithTrap let it pass.
// Left alone it would unwind through the C gateway and the Rust library's extern "C" frames,
// which is undefined behaviour and skips the library's ABORT path (its busy flag stays set on a
// persistent state). So every call into the interpreter goes through sgs_trap_call, which
// catches whatever is thrown, keeps it, and makes the callback return SGS_CB_ABORT; the library
// returns normally, the gateway frees its buffers and returns, and mexFunction below rethrows
// the kept exception: the user sees the same interrupt at the prompt as for any other Ctrl-C.
//
// MATLAB is not available here, so its side is untested: its documented mexCallMATLABWithTrap
// returns errors as MException; anything it throws instead is treated as above. Between
// iterations MATLAB's undocumented utIsInterruptPending (libut, link -lut; define SGS_NO_UT to
// leave it out) is polled and the gateway raises sgsample:interrupted.
#include <exception>

#include "mex.h"

#if defined(HAVE_OCTAVE)
#include <octave/quit.h>
#elif defined(MATLAB_MEX_FILE) && !defined(SGS_NO_UT)
extern "C" bool utIsInterruptPending(void);
#endif

// The exception caught during the current MEX call, rethrown when the gateway has cleaned up.
static std::exception_ptr pending;

extern "C" {

void sgs_gateway(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);

// mexCallMATLABWithTrap(nout, outs, nin, ins, "feval") that never throws: a thrown exception is
// kept (*thrown = 1, NULL returned) and no further interpreter call is made by the gateway.
mxArray *sgs_trap_call(int nout, mxArray *outs[], int nin, mxArray *ins[], int *thrown) {
    *thrown = 0;
    try {
        return mexCallMATLABWithTrap(nout, outs, nin, ins, "feval");
    } catch (...) {
        pending = std::current_exception();
        *thrown = 1;
        return nullptr;
    }
}

// Polled between iterations; nonzero = stop the run. Under Octave this is Octave's own interrupt
// check, whose exception is kept for mexFunction to rethrow (sgs_trap_pending() is then 1).
int sgs_trap_interrupt(void) {
#if defined(HAVE_OCTAVE)
    try {
        octave_quit();
    } catch (...) {
        pending = std::current_exception();
        return 1;
    }
    return 0;
#elif defined(MATLAB_MEX_FILE) && !defined(SGS_NO_UT)
    return utIsInterruptPending() ? 1 : 0;
#else
    return 0;
#endif
}

int sgs_trap_pending(void) { return pending ? 1 : 0; }

// The gateway is C; its entry point is here so that the rethrow starts in a C++ frame after the
// gateway has returned (and freed everything) normally.
void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    pending = nullptr;
    sgs_gateway(nlhs, plhs, nrhs, prhs);
    if (pending) {
        std::exception_ptr p = pending;
        pending = nullptr;
        std::rethrow_exception(p);
    }
}

} // extern "C"
