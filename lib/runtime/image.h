// Where the TrainJob image goes under the current behaviour: each MLPolicy plugin calls this on
// its trainer containers (docs: image-behaviour-change).
#pragma once

#include "api/types.h"
#include "runtime/info.h"

namespace trainer {

// Sets spec.trainer.image on `container`, noting `plugin` as the one that set it; a no-op when the
// container is missing or the TrainJob sets no image.
void SetTrainJobImage(Container* container, const TrainJob& job, const char* plugin);

}  // namespace trainer
