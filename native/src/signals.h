// Signal masking around native work. Why it exists: oneDNN up to 3.11 (this machine has 2.6.3)
// has JIT f32 GEMM kernels ("nocopy" sgemm, AVX/AVX2 and AVX-512) that, when their block of K
// exceeds what fits on the stack (K in 253..256 or K >= 505 on AVX2), point rsp at a heap
// workspace while they run (upstream issue uxlfoundation/oneDNN#4845, fixed by #4855). A signal
// delivered to that thread then has its frame written by the kernel below rsp, i.e. over the
// preceding heap chunk and malloc's metadata: "corrupted size vs. prev_size" at a later free.
// V8's CPU profiler (node --cpu-prof) sends SIGPROF to the main thread every sampling interval;
// SIGCHLD, SIGINT, SIGWINCH, ... can land on any thread that does not block them. So every
// entry point runs with asynchronous signals blocked (they stay pending and are delivered when the
// call returns), and the OpenMP worker threads block them for good.
// Not masked: the synchronous fault signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS) and
// SIGABRT, whose handlers must still run if native code faults.
#pragma once
#include <signal.h>

namespace seed {

// Blocks the asynchronous signals on the calling thread for its lifetime, then restores the mask.
class SignalShield {
 public:
  SignalShield();
  ~SignalShield();
  SignalShield(const SignalShield&) = delete;
  SignalShield& operator=(const SignalShield&) = delete;

 private:
  sigset_t saved_;
  bool active_;
};

// Blocks the asynchronous signals permanently in the worker threads of an OpenMP team of `n`
// (the caller's own mask is left to its SignalShield), so the pool threads that run oneDNN's
// kernels never take one, even threads some other library started before this addon loaded.
// Threads created later inherit the mask of their creator, which is always inside a SignalShield.
void shield_worker_threads(int n);

// Which threads block the asynchronous signals right now: the calling thread, and how many of an
// OpenMP team of `n` (for tests of the two guarantees above).
struct ShieldReport {
  bool caller;
  int team;
  int blocked;
};
ShieldReport shield_report(int n);

}  // namespace seed
