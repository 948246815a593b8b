#include "runtime/image.h"

namespace trainer {

void SetTrainJobImage(Container* container, const TrainJob& job, const char* plugin) {
  if (container == nullptr || !job.spec.trainer || !job.spec.trainer->image) return;
  container->image = Tree::String(*job.spec.trainer->image, job.positions.Find("spec.trainer.image").SetBy(plugin));
}

}  // namespace trainer
