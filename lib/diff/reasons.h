// Why a field of a rendered object changes between the legacy and the current image behaviour:
// the known breaking changes of docs/image-behaviour-change.md, as one table of rules.
#pragma once

#include <span>
#include <string>

#include "api/types.h"
#include "diff/diff.h"

namespace trainer {

// What a rule may look at: the runtime of the TrainJob and the two renderings of one object.
struct ReasonContext {
  const Runtime* runtime = nullptr;  // null when there is no TrainJob (`trainer diff FROM TO`)
  const ObjectId* id = nullptr;
  const Tree* from = nullptr;  // the legacy rendering of the object
  const Tree* to = nullptr;    // the current rendering of the object
};

// One known breaking change.
struct BreakingChange {
  const char* name;  // a stable identifier, e.g. "mpi-node-image"
  const char* text;  // the reason shown to users
  bool (*applies)(const ReasonContext& context, const FieldChange& change);
  // What the change asks of the user, from the runtime; null when it asks nothing.
  std::string (*asks)(const ReasonContext& context);
};

// Every known breaking change, in the order they are tried.
std::span<const BreakingChange> BreakingChanges();

// The text of the first breaking change that explains `change`, or "" when none does.
std::string ReasonFor(const ReasonContext& context, const FieldChange& change);

// What the first breaking change that explains `change` asks of the user, or "".
std::string AsksFor(const ReasonContext& context, const FieldChange& change);

}  // namespace trainer
