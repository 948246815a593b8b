#include "runtime/objects.h"

namespace trainer {

Tree OwnerReference(const TrainJob& job, const Origin& origin) {
  Tree owner = Tree::Map(origin);
  owner.Set("apiVersion", Tree::String(kTrainerApiVersion, origin));
  owner.Set("kind", Tree::String(kTrainJobKind, origin));
  owner.Set("name", Tree::String(job.metadata.name, job.positions.Find("metadata.name")));
  owner.Set("uid", Tree::String(job.metadata.uid, job.positions.Find("metadata.uid")));
  owner.Set("controller", Tree::Bool(true, origin));
  owner.Set("blockOwnerDeletion", Tree::Bool(true, origin));
  return owner;
}

Tree NewOwnedObject(std::string_view api_version, std::string_view kind, std::string_view name, const TrainJob& job,
                    const Origin& origin) {
  Tree object = Tree::Map(origin);
  object.Set("apiVersion", Tree::String(std::string(api_version), origin));
  object.Set("kind", Tree::String(std::string(kind), origin));
  Tree& meta = object.Child("metadata", origin);
  meta.Set("name", Tree::String(std::string(name), origin));
  meta.Set("namespace", Tree::String(job.metadata.namespace_, job.positions.Find("metadata.namespace")));
  meta.Set("ownerReferences", Tree::List(origin)).Append(OwnerReference(job, origin));
  return object;
}

}  // namespace trainer
