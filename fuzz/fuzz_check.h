// FUZZ_CHECK: an invariant of a fuzz target (a round trip, a bound). Aborts, so libFuzzer records
// the input as a crash, and so does the replay main (the unit test fails).
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
