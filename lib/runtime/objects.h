// Building the objects plugins create: metadata with the owner reference every created object
// carries (the TrainJob, controller: true, blockOwnerDeletion: true).
#pragma once

#include <string_view>

#include "api/types.h"
#include "yaml/tree.h"

namespace trainer {

Tree OwnerReference(const TrainJob& job, const Origin& origin);

// {apiVersion, kind, metadata: {name, namespace, ownerReferences: [TrainJob]}}.
Tree NewOwnedObject(std::string_view api_version, std::string_view kind, std::string_view name, const TrainJob& job,
                    const Origin& origin);

}  // namespace trainer
