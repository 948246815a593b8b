// Differential test of the strategic merge against kubectl: seeded random pod templates and the
// runtime-patch-shaped patches a TrainJob can carry, each merged by StrategicMerge and by
// `kubectl patch --local --type strategic` on a batch/v1 Job holding the same pod template.
// kubectl runs the same apimachinery function on the same struct tags (see
// ../shared/docs/runtime-patches-and-quantities.md A.5), so the two must agree exactly.
#include "tests/smp_kubectl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include <stdlib.h>

#include "k8s/strategic_merge.h"
#include "util/error.h"
#include "yaml/reader.h"
#include "yaml/writer.h"

namespace trainer::testing {

namespace {

namespace fs = std::filesystem;

class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  // A pod template as json.Marshal prints a typed one: no empty values.
  Tree PodTemplate() {
    Tree pod = Tree::Map();
    Tree meta = Meta();
    if (meta.size() > 0) pod.Set("metadata", std::move(meta));
    Tree spec = Tree::Map();
    if (Chance(0.5)) spec.Set("serviceAccountName", Str("sa", 3));
    SetIfAny(spec, "volumes", Items("v", 4, [&](const std::string& name) { return Volume(name); }));
    SetIfAny(spec, "initContainers", Items("i", 3, [&](const std::string& name) { return Container(name, true); }));
    Tree containers = Items("c", 4, [&](const std::string& name) { return Container(name, true); });
    if (containers.items().empty()) containers.Append(Container("c1", true));
    spec.Set("containers", std::move(containers));
    SetIfAny(spec, "imagePullSecrets", Items("s", 3, [&](const std::string& name) { return Named(name); }));
    PodFields(spec);
    pod.Set("spec", std::move(spec));
    return pod;
  }

  // What a TrainJob runtime patch can say about a pod template (PodTemplatePatch).
  Tree Patch() {
    Tree pod = Tree::Map();
    Tree meta = Meta();
    if (meta.size() > 0) pod.Set("metadata", std::move(meta));
    Tree spec = Tree::Map();
    if (Chance(0.4)) spec.Set("serviceAccountName", Str("sa", 3));
    SetIfAny(spec, "volumes", Items("v", 5, [&](const std::string& name) { return Volume(name); }));
    SetIfAny(spec, "initContainers", Items("i", 4, [&](const std::string& name) { return Container(name, false); }));
    SetIfAny(spec, "containers", Items("c", 5, [&](const std::string& name) { return Container(name, false); }));
    SetIfAny(spec, "imagePullSecrets", Items("s", 4, [&](const std::string& name) { return Named(name); }));
    PodFields(spec);
    if (spec.size() > 0) pod.Set("spec", std::move(spec));
    return pod;
  }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int Pick(int n) { return std::uniform_int_distribution<int>(1, n)(rng_); }
  Tree Str(const char* prefix, int n) { return Tree::String(fmt::format("{}{}", prefix, Pick(n))); }

  // The list at `key`, created empty.
  static Tree& ListAt(Tree& map, const char* key) { return map.Set(key, Tree::List()); }

  static void SetIfAny(Tree& map, const char* key, Tree value) {
    if (value.size() > 0 || !value.items().empty()) map.Set(key, std::move(value));
  }

  // Items named prefix1..prefixN: a random subset in random order, no name twice.
  template <class Make>
  Tree Items(const char* prefix, int n, Make make) {
    std::vector<int> names(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) names[static_cast<std::size_t>(i)] = i + 1;
    std::shuffle(names.begin(), names.end(), rng_);
    names.resize(static_cast<std::size_t>(std::uniform_int_distribution<int>(0, n)(rng_)));
    Tree list = Tree::List();
    for (int name : names) list.Append(make(fmt::format("{}{}", prefix, name)));
    return list;
  }

  Tree StringMap(const char* prefix, int n) {
    Tree map = Tree::Map();
    Tree keys = Items(prefix, n, [&](const std::string& key) { return Tree::String(key); });
    for (const Tree& key : keys.items()) map.Set(key.text(), Str("x", 3));
    return map;
  }

  Tree Meta() {
    Tree meta = Tree::Map();
    SetIfAny(meta, "labels", StringMap("l", 4));
    SetIfAny(meta, "annotations", StringMap("a", 3));
    SetIfAny(meta, "finalizers", Items("f", 3, [](const std::string& name) { return Tree::String(name); }));
    return meta;
  }

  static Tree Named(const std::string& name) {
    Tree t = Tree::Map();
    t.Set("name", Tree::String(name));
    return t;
  }

  Tree Volume(const std::string& name) {
    Tree v = Named(name);
    switch (Pick(3)) {
      case 1: v.Set("emptyDir", Tree::Map()); break;
      case 2: v.Child("configMap").Set("name", Str("cm", 3)); break;
      default: v.Child("persistentVolumeClaim").Set("claimName", Str("pvc", 3)); break;
    }
    return v;
  }

  Tree Env(const std::string& name) {
    Tree e = Named(name);
    if (Chance(0.7)) {
      e.Set("value", Str("v", 4));
    } else {
      e.Child("valueFrom").Child("fieldRef").Set("fieldPath", Tree::String("metadata.name"));
    }
    return e;
  }

  Tree Mount(const std::string& path) {
    Tree m = Tree::Map();
    m.Set("mountPath", Tree::String("/" + path));
    m.Set("name", Str("v", 4));
    if (Chance(0.3)) m.Set("readOnly", Tree::Bool(true));
    return m;
  }

  Tree SecurityContext() {
    Tree sc = Tree::Map();
    if (Chance(0.5)) sc.Set("runAsUser", Tree::Int(Pick(3) * 1000));
    if (Chance(0.3)) sc.Set("privileged", Tree::Bool(true));
    Tree caps = Tree::Map();
    SetIfAny(caps, "add", Items("CAP", 3, [](const std::string& name) { return Tree::String(name); }));
    SetIfAny(caps, "drop", Items("DROP", 2, [](const std::string& name) { return Tree::String(name); }));
    SetIfAny(sc, "capabilities", std::move(caps));
    return sc;
  }

  // `full` containers are a runtime's (image, ports); patch containers carry only what
  // ContainerPatch has.
  Tree Container(const std::string& name, bool full) {
    Tree c = Named(name);
    if (full) {
      c.Set("image", Str("img", 3));
      if (Chance(0.3)) ListAt(c, "ports").Append(Tree::Map()).Set("containerPort", Tree::Int(8000 + Pick(3)));
    }
    SetIfAny(c, "env", Items("E", 5, [&](const std::string& n) { return Env(n); }));
    SetIfAny(c, "volumeMounts", Items("m", 4, [&](const std::string& n) { return Mount(n); }));
    if (Chance(0.3)) SetIfAny(c, "securityContext", SecurityContext());
    return c;
  }

  void PodFields(Tree& spec) {
    if (Chance(0.4)) {
      Tree sc = Tree::Map();
      if (Chance(0.6)) sc.Set("runAsUser", Tree::Int(Pick(3)));
      if (Chance(0.5)) sc.Set("fsGroup", Tree::Int(Pick(3)));
      Tree groups = Items("", 3, [](const std::string& n) { return Tree::Int(std::stoi(n)); });
      SetIfAny(sc, "supplementalGroups", std::move(groups));
      SetIfAny(spec, "securityContext", std::move(sc));
    }
    SetIfAny(spec, "nodeSelector", StringMap("k", 4));
    if (Chance(0.4)) {
      Tree affinity = Tree::Map();
      Tree& node = affinity.Child("nodeAffinity");
      Tree terms = Items("zone", 2, [&](const std::string& key) {
        Tree term = Tree::Map();
        Tree& expr = ListAt(term, "matchExpressions").Append(Tree::Map());
        expr.Set("key", Tree::String(key));
        expr.Set("operator", Tree::String("In"));
        Tree values = Tree::List();
        values.Append(Str("z", 3));
        expr.Set("values", std::move(values));
        return term;
      });
      if (!terms.items().empty()) node.Child("requiredDuringSchedulingIgnoredDuringExecution").Set("nodeSelectorTerms", std::move(terms));
      if (Chance(0.5)) {
        Tree& item = ListAt(node, "preferredDuringSchedulingIgnoredDuringExecution").Append(Tree::Map());
        item.Set("weight", Tree::Int(Pick(100)));
        Tree& expr = ListAt(item.Child("preference"), "matchExpressions").Append(Tree::Map());
        expr.Set("key", Str("pref", 3));
        expr.Set("operator", Tree::String("Exists"));
      }
      if (node.size() == 0) affinity.Erase("nodeAffinity");
      SetIfAny(spec, "affinity", std::move(affinity));
    }
    SetIfAny(spec, "tolerations", Items("t", 3, [&](const std::string& key) {
      Tree t = Tree::Map();
      t.Set("key", Tree::String(key));
      t.Set("operator", Tree::String("Exists"));
      return t;
    }));
    SetIfAny(spec, "schedulingGates", Items("g", 3, [](const std::string& name) { return Named(name); }));
    if (Chance(0.3)) spec.Set("terminationGracePeriodSeconds", Tree::Int(Pick(60)));
  }

  std::mt19937 rng_;
};

Tree JobWith(const Tree& pod_template) {
  Tree job = Tree::Map();
  job.Set("apiVersion", Tree::String("batch/v1"));
  job.Set("kind", Tree::String("Job"));
  job.Child("metadata").Set("name", Tree::String("j"));
  job.Child("spec").Set("template", pod_template);
  return job;
}

std::string Json(const Tree& value) {
  std::string out;
  WriteJson(value, out, 2);
  return out;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

int RunSmpKubectl(int cases, unsigned seed) {
  if (std::system("kubectl version --client >/dev/null 2>&1") != 0) {
    std::cout << "SKIP: kubectl is not installed; the strategic merge is not compared with it\n";
    return 77;
  }
  // A folder of its own: two runs at once (two build trees) must not share one.
  std::string pattern = (fs::temp_directory_path() / fmt::format("trainer-smp-{}-XXXXXX", seed)).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::cout << "cannot make a temporary folder: " << std::strerror(errno) << "\n";
    return 1;
  }
  fs::path dir = pattern;
  Generator generator(seed);
  std::vector<Tree> originals;
  std::vector<Tree> patches;
  for (int i = 0; i < cases; ++i) {
    originals.push_back(generator.PodTemplate());
    patches.push_back(generator.Patch());
    WriteFile(dir / fmt::format("{}.job.json", i), Json(JobWith(originals.back())));
    Tree job_patch = Tree::Map();
    job_patch.Child("spec").Set("template", patches.back());
    WriteFile(dir / fmt::format("{}.patch.json", i), Json(job_patch));
  }
  // Two kubectl processes at a time: one per core of the CI machine.
  std::string command = fmt::format(
      "cd '{}' && seq 0 {} | xargs -P 2 -I N sh -c "
      "'kubectl patch --local -f N.job.json --type strategic --patch-file N.patch.json -o json > N.out.json 2> N.err'",
      dir.string(), cases - 1);
  if (std::system(command.c_str()) != 0) {
    std::cout << "kubectl failed; see " << dir << "\n";
    return 1;
  }
  int failures = 0;
  for (int i = 0; i < cases; ++i) {
    std::ifstream in(dir / fmt::format("{}.out.json", i), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    static const std::string kName = "kubectl";
    std::string expected;
    try {
      std::vector<Tree> docs = ReadYamlStream(text.str(), &kName);
      const Tree* spec = docs.at(0).Find("spec");
      expected = Json(*spec->Find("template"));
    } catch (const std::exception& e) {
      std::cout << "case " << i << ": cannot read kubectl's output: " << e.what() << "\n";
      ++failures;
      continue;
    }
    Tree merged = originals[static_cast<std::size_t>(i)];
    StrategicMerge(merged, patches[static_cast<std::size_t>(i)], PodTemplateSpecMergeLists());
    std::string got = Json(merged);
    if (got != expected) {
      ++failures;
      if (failures <= 3) {
        std::cout << "case " << i << " differs (inputs in " << dir << ")\n--- kubectl\n"
                  << expected << "\n--- trainer\n" << got << "\n";
      }
    }
  }
  std::cout << cases - failures << " of " << cases << " strategic merges agree with kubectl (seed " << seed << ")\n";
  if (failures == 0) fs::remove_all(dir);
  return failures == 0 ? 0 : 1;
}

}  // namespace trainer::testing
