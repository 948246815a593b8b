// --skip-non-trainer: keeps only the input files that hold a Trainer object, so that a pre-commit
// hook handed every changed YAML file (Helm values, CI workflows, other manifests) stays quiet.
#pragma once

#include <string>
#include <vector>

#include "input/loader.h"

namespace trainer::app {

// Of `paths` (files, directories, "-"), the ones to load: directories become their *.yaml, *.yml
// and *.json files, and a file is kept when one of its documents (or an item of a *List) is a
// TrainJob, TrainingRuntime or ClusterTrainingRuntime, has a trainer.kubeflow.org apiVersion, or is
// a JobSet (which the loader reads as state, and never reports as skipped). A file that is
// not valid YAML is kept when its text names trainer.kubeflow.org (a broken TrainJob still fails; a
// Helm template does not). Standard input, missing paths, pipes and unreadable files are kept, for
// the loader to read or report.
std::vector<std::string> KeepTrainerFiles(const std::vector<std::string>& paths, FileSystem& fs);

}  // namespace trainer::app
