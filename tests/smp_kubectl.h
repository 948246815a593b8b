// `trainer_tests smp-kubectl [CASES] [SEED]`: the strategic merge compared with kubectl's.
#pragma once

namespace trainer::testing {

// Returns 0 when every case agrees, 1 otherwise, 77 when kubectl is missing.
int RunSmpKubectl(int cases, unsigned seed);

}  // namespace trainer::testing
