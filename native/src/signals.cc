// Signal masking around native work (see signals.h for why).
#include "signals.h"

#include <omp.h>
#include <pthread.h>

#include <initializer_list>

namespace seed {
namespace {

// Every signal except those raised synchronously by a faulting instruction (and abort()), and
// the two no thread can block.
sigset_t async_set() {
  sigset_t s;
  sigfillset(&s);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT, SIGKILL, SIGSTOP}) sigdelset(&s, sig);
  return s;
}

const sigset_t& blocked() {
  static const sigset_t s = async_set();
  return s;
}

}  // namespace

SignalShield::SignalShield() { active_ = pthread_sigmask(SIG_BLOCK, &blocked(), &saved_) == 0; }

SignalShield::~SignalShield() {
  if (active_) pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

void shield_worker_threads(int n) {
  // Thread 0 is the caller: its mask belongs to the SignalShield around this call.
#pragma omp parallel num_threads(n)
  if (omp_get_thread_num() != 0) pthread_sigmask(SIG_BLOCK, &blocked(), nullptr);
}

namespace {
bool async_signals_blocked() {
  sigset_t now;
  if (pthread_sigmask(SIG_SETMASK, nullptr, &now) != 0) return false;
  // glibc never lets a thread block its two internal real-time signals (SIGCANCEL, SIGSETXID),
  // so compare the standard signals only: those are what a profiler or a terminal sends.
  for (int sig = 1; sig < 32; sig++)
    if (sigismember(&blocked(), sig) == 1 && sigismember(&now, sig) != 1) return false;
  return true;
}
}  // namespace

ShieldReport shield_report(int n) {
  ShieldReport r{async_signals_blocked(), 0, 0};
#pragma omp parallel num_threads(n)
  {
    const bool b = async_signals_blocked();
#pragma omp critical
    {
      r.team++;
      r.blocked += b ? 1 : 0;
    }
  }
  return r;
}

}  // namespace seed
