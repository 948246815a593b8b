#include "webhooks/jobset_webhook.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "tests/fixtures.h"

namespace trainer {

namespace {

using Lines = std::vector<std::string>;

// Upstream's validPodTemplateSpec and TestPodTemplate.
constexpr std::string_view kPod = "{spec: {containers: [{name: test, image: 'bash:latest'}]}}";
constexpr std::string_view kTestPod =
    "{spec: {restartPolicy: Never, containers: [{name: test-container, image: 'busybox:latest'}]}}";
// The Job spec fields of an Indexed Job of one Pod.
constexpr std::string_view kOnePod = "completionMode: Indexed, completions: 1, parallelism: 1, ";

// A replicatedJob: `name`, its other fields `fields` (each followed by ", "), its Job spec fields
// `job` (each followed by ", ") and its Pod template `pod`.
std::string RJob(std::string_view name, std::string_view fields = "groupName: default, replicas: 1, ",
                 std::string_view job = "", std::string_view pod = kPod) {
  return fmt::format("{{name: {}, {}template: {{spec: {{{}template: {}}}}}}}", name, fields, job, pod);
}

// A JobSet named `name` whose spec holds `spec` (flow mapping entries).
std::string JobSet(std::string_view spec, std::string_view name = "js") {
  return fmt::format("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {{name: {}}}\nspec: {{{}}}\n", name,
                     spec);
}

Lines Messages(const std::vector<JobSetError>& errors) {
  Lines out;
  for (const JobSetError& e : errors) out.push_back(e.message);
  return out;
}

Lines Create(const std::string& yaml, const JobSetFeatureGates& gates = {}) {
  Tree jobset = testing::Yaml(yaml);
  return Messages(ValidateJobSetCreate(jobset, gates));
}

Lines Update(const std::string& old_yaml, const std::string& new_yaml, const JobSetFeatureGates& gates = {}) {
  Tree old_jobset = testing::Yaml(old_yaml);
  Tree new_jobset = testing::Yaml(new_yaml);
  return Messages(ValidateJobSetUpdate(old_jobset, new_jobset, gates));
}

std::string Internal(std::string_view text) { return fmt::format("<nil>: Internal error: {}", text); }

std::string Repeat(char c, std::size_t n) { return std::string(n, c); }

const std::string kDns1035Error =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation "
    "is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const std::string kRuleNameError =
    "a failure policy rule name must start with an alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";

struct CreateCase {
  const char* name;
  std::string yaml;
  Lines want;
  JobSetFeatureGates gates = {};
};

void Run(const std::vector<CreateCase>& cases) {
  for (const CreateCase& c : cases) {
    CAPTURE(c.name);
    CHECK(Create(c.yaml, c.gates) == c.want);
    // Judged as sent, it gives what defaulting a copy and judging that gives.
    Tree defaulted = testing::Yaml(c.yaml);
    ApplyJobSetSchemaDefaults(defaulted);
    DefaultJobSet(defaulted);
    CHECK(Messages(ValidateJobSetAsSent(testing::Yaml(c.yaml), c.gates)) ==
          Messages(ValidateJobSetCreate(defaulted, c.gates)));
  }
}

}  // namespace

TEST_CASE("JobSet defaulting: the mutating webhook fills what is unset, as upstream's TestJobSetDefaulting") {
  const std::string policies =
      "successPolicy: {operator: All}, startupPolicy: {startupPolicyOrder: AnyOrder}, "
      "network: {enableDNSHostnames: true, publishNotReadyAddresses: true}, ";
  const std::string success = "successPolicy: {operator: All}, ";
  const std::string startup = "startupPolicy: {startupPolicyOrder: AnyOrder}, ";
  const std::string network = "network: {enableDNSHostnames: true, publishNotReadyAddresses: true}, ";
  const std::string managed = "managedBy: jobset.sigs.k8s.io/jobset-controller";
  auto rjobs = [](std::string_view job, std::string_view pod = kTestPod) {
    return fmt::format("replicatedJobs: [{{template: {{spec: {{{}template: {}}}}}}}], ", job, pod);
  };
  struct Case {
    const char* name;
    std::string spec;
    std::string want;
  };
  const Case cases[] = {
      {"job completion mode is unset", policies + rjobs("") + managed,
       policies + rjobs("completionMode: Indexed, ") + managed},
      {"job completion mode is set to non-indexed", success + network + rjobs("completionMode: NonIndexed, ") + managed,
       policies + rjobs("completionMode: NonIndexed, ") + managed},
      {"enableDNSHostnames is unset", success + startup + rjobs("completionMode: Indexed, ") + managed,
       policies + rjobs("completionMode: Indexed, ") + managed},
      {"enableDNSHostnames is false",
       success + startup + "network: {enableDNSHostnames: false}, " + rjobs("completionMode: NonIndexed, ") + managed,
       success + startup + "network: {enableDNSHostnames: false, publishNotReadyAddresses: true}, " +
           rjobs("completionMode: NonIndexed, ") + managed},
      {"PublishNotReadyNetworkAddresess is false",
       success + startup + "network: {publishNotReadyAddresses: false}, " + rjobs("completionMode: NonIndexed, ") +
           managed,
       success + startup + "network: {enableDNSHostnames: true, publishNotReadyAddresses: false}, " +
           rjobs("completionMode: NonIndexed, ") + managed},
      {"PublishNotReadyNetworkAddresess is true",
       success + startup + "network: {enableDNSHostnames: false, publishNotReadyAddresses: true}, " +
           rjobs("completionMode: NonIndexed, ") + managed,
       success + startup + "network: {enableDNSHostnames: false, publishNotReadyAddresses: true}, " +
           rjobs("completionMode: NonIndexed, ") + managed},
      {"pod restart policy unset", policies + rjobs("completionMode: Indexed, ", "{spec: {}}") + managed,
       policies + rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: OnFailure}}") + managed},
      {"pod restart policy set",
       policies + rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: Always}}") + managed,
       policies + rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: Always}}") + managed},
      {"success policy unset",
       startup + network + rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: Always}}") + managed,
       policies + rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: Always}}") + managed},
      {"success policy operator set, replicatedJobNames unset",
       "successPolicy: {operator: Any}, " + network + startup +
           rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: Always}}") + managed,
       "successPolicy: {operator: Any}, " + startup + network +
           rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: Always}}") + managed},
      {"startup policy order InOrder set",
       "successPolicy: {operator: Any}, " + network + "startupPolicy: {startupPolicyOrder: InOrder}, " +
           rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: Always}}") + managed,
       "successPolicy: {operator: Any}, startupPolicy: {startupPolicyOrder: InOrder}, " + network +
           rjobs("completionMode: Indexed, ", "{spec: {restartPolicy: Always}}") + managed},
      {"managedBy field is left nil", success + network + rjobs("completionMode: Indexed, "),
       policies + rjobs("completionMode: Indexed, ")},
      {"when provided, managedBy field is preserved",
       success + network + rjobs("completionMode: Indexed, ") + "managedBy: other-controller",
       policies + rjobs("completionMode: Indexed, ") + "managedBy: other-controller"},
      {"failure policy rule name is defaulted when: there is one rule and it does not have a name",
       success + network + rjobs("completionMode: Indexed, ") + "failurePolicy: {rules: [{}]}",
       policies + rjobs("completionMode: Indexed, ") + "failurePolicy: {rules: [{name: failurePolicyRule0}]}"},
      {"failure policy rule name is defaulted when: there are two rules, the first rule has a name, the second rule "
       "does not have a name",
       success + network + rjobs("completionMode: Indexed, ") + "failurePolicy: {rules: [{name: ruleWithAName}, {}]}",
       policies + rjobs("completionMode: Indexed, ") +
           "failurePolicy: {rules: [{name: ruleWithAName}, {name: failurePolicyRule1}]}"},
      {"volumeClaimPolicy retentionPolicy is defaulted to Delete when nil",
       policies + "volumeClaimPolicies: [{templates: [{metadata: {name: test-volume}}]}], " +
           rjobs("completionMode: Indexed, ") + managed,
       policies +
           "volumeClaimPolicies: [{templates: [{metadata: {name: test-volume}}], "
           "retentionPolicy: {whenDeleted: Delete}}], " +
           rjobs("completionMode: Indexed, ") + managed},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Tree jobset = testing::Yaml(JobSet(c.spec));
    DefaultJobSet(jobset);
    CHECK(testing::Text(jobset) == testing::Text(testing::Yaml(JobSet(c.want))));
  }
}

TEST_CASE("JobSet defaulting: defaulted values say they are defaults, and set values stay as they were") {
  Tree jobset = testing::Yaml(JobSet("replicatedJobs: [" + RJob("rj") + "]"));
  DefaultJobSet(jobset);
  const Tree& spec = *jobset.Find("spec");
  CHECK(spec.Find("successPolicy")->origin().kind == Origin::Kind::kDefault);
  CHECK(spec.Find("network")->Find("enableDNSHostnames")->origin().kind == Origin::Kind::kDefault);
  CHECK(spec.Find("replicatedJobs")->items()[0].Find("name")->origin().kind == Origin::Kind::kInput);
}

TEST_CASE("JobSet schema defaults: replicas, groupName, restartStrategy and whenDeleted, as the CRD declares them") {
  Tree jobset = testing::Yaml(JobSet(
      "replicatedJobs: [{name: a, template: {}}, {name: b, replicas: 3, groupName: g, template: {}}], "
      "failurePolicy: {maxRestarts: 1}, volumeClaimPolicies: [{templates: []}, {retentionPolicy: {}, templates: []}]"));
  ApplyJobSetSchemaDefaults(jobset);
  CHECK(testing::Text(*jobset.Find("spec")) ==
        testing::Text(testing::Yaml(
            "replicatedJobs: [{name: a, template: {}, groupName: default, replicas: 1}, "
            "{name: b, replicas: 3, groupName: g, template: {}}]\n"
            "failurePolicy: {maxRestarts: 1, restartStrategy: Recreate}\n"
            "volumeClaimPolicies: [{templates: []}, {retentionPolicy: {whenDeleted: Delete}, templates: []}]\n")));
}

TEST_CASE("JobSet ValidateCreate: upstream's uncategorized cases") {
  Run({
      {"number of pods exceeds the limit",
       JobSet("replicatedJobs: [" +
              RJob("test-jobset-replicated-job-0", "groupName: default, replicas: 2147483647, ",
                   "parallelism: 2147483647, ") +
              ", " +
              RJob("test-jobset-replicated-job-1", "groupName: default, replicas: -2147483648, ",
                   "parallelism: -2147483648, ") +
              "], successPolicy: {operator: All}"),
       {Internal("the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
                 "'test-jobset-replicated-job-0'"),
        Internal("the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
                 "'test-jobset-replicated-job-1'")}},
      {"number of pods within the limit",
       JobSet("replicatedJobs: [" + RJob("test-jobset-replicated-job-0") + "], successPolicy: {operator: All}"),
       {}},
      {"success policy has non matching replicated job",
       JobSet("replicatedJobs: [" + RJob("test-jobset-replicated-job-0") +
              "], successPolicy: {operator: All, targetReplicatedJobs: ['does not exist']}"),
       {Internal("invalid replicatedJob name 'does not exist' does not appear in .spec.ReplicatedJobs")}},
      {"network has invalid dns name",
       JobSet("network: {enableDNSHostnames: true, subdomain: " + Repeat('a', 64) + "}, replicatedJobs: [" +
              RJob("test-jobset-replicated-job-0") + "], successPolicy: {operator: All}"),
       {"spec.network.subdomain: Invalid value: \"" + Repeat('a', 64) +
        "\": .spec.network.subdomain is too long, must be less than 63 characters"}},
      {"jobset name with invalid character",
       JobSet("replicatedJobs: [" + RJob("username.llama65b") + "], successPolicy: {operator: All}"),
       {"spec.replicatedJobs[0].name: Invalid value: \"js-username.llama65b-0\": " + kDns1035Error}},
      {"group name is not DNS 1035 compliant",
       JobSet("replicatedJobs: [" + RJob("rj", "groupName: " + Repeat('a', 64) + ", replicas: 1, ") +
              "], successPolicy: {operator: All}"),
       {"spec.replicatedJobs[0].groupName: Invalid value: \"" + Repeat('a', 64) +
        "\": .spec.replicatedJob[].groupName is too long, must be less than 63 characters"}},
      {"jobset name will result in job name being too long",
       JobSet("replicatedJobs: [" + RJob("rj", "groupName: default, replicas: 101, ") +
                  "], successPolicy: {operator: All}",
              Repeat('a', 62)),
       {"spec.replicatedJobs[0].name: Invalid value: \"" + Repeat('a', 62) +
        "-rj-100\": JobSet name is too long, job names generated for this JobSet will exceed 63 characters"}},
      {"jobset name will result in a pod name being too long",
       JobSet("replicatedJobs: [" + RJob("rj", "groupName: default, replicas: 1, ", kOnePod) +
                  "], successPolicy: {operator: All}",
              Repeat('a', 56)),
       {"spec.replicatedJobs[0].name: Invalid value: \"" + Repeat('a', 56) +
        "-rj-0\": JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"}},
  });
}

TEST_CASE("JobSet ValidateCreate: upstream's managedBy cases") {
  auto spec = [](std::string_view managed_by) {
    return JobSet(fmt::format("{}replicatedJobs: [{}], successPolicy: {{}}", managed_by,
                              RJob("rj", "groupName: default, replicas: 1, ", kOnePod)));
  };
  const std::string too_long = "foo.bar/" + Repeat('a', 63);
  Run({
      {"jobset controller name is not a domain-prefixed path",
       spec("managedBy: notDomainPrefixedPathControllerName, "),
       {"spec.managedBy: Invalid value: \"notDomainPrefixedPathControllerName\": must be a domain-prefixed path "
        "(such as \"acme.io/foo\")"}},
      {"jobset controller name is too long",
       spec("managedBy: " + too_long + ", "),
       {"spec.managedBy: Too long: may not be more than 63 bytes"}},
      {"jobset controller name is set and valid", spec("managedBy: jobset.sigs.k8s.io/jobset-controller, "), {}},
      {"jobset controller name is unset", spec(""), {}},
  });
}

TEST_CASE("JobSet ValidateCreate: upstream's failure policy and coordinator cases") {
  const std::string rj = RJob("rj", "groupName: default, replicas: 1, ", kOnePod);
  auto with_rules = [&](std::string_view rules, std::string_view rjob = {}) {
    return JobSet(fmt::format("replicatedJobs: [{}], failurePolicy: {{rules: [{}]}}, successPolicy: {{}}",
                              rjob.empty() ? std::string_view(rj) : rjob, rules));
  };
  const std::string ab = RJob("replicatedjob-a", "groupName: default, replicas: 2, ",
                              "completionMode: Indexed, completions: 2, parallelism: 2, ") +
                         ", " +
                         RJob("replicatedjob-b", "groupName: default, replicas: 2, ",
                              "completionMode: Indexed, completions: 2, parallelism: 2, ");
  auto coordinator = [](std::string_view spec, std::string_view rjobs, std::string_view name = "js",
                        std::string_view network = "") {
    return JobSet(fmt::format("{}coordinator: {}, replicatedJobs: [{}], successPolicy: {{}}", network, spec, rjobs),
                  name);
  };
  const std::string big = RJob("rj", "groupName: default, replicas: 1025, ", kOnePod);
  const JobSetFeatureGates restart_job{.restart_job = true};
  const std::string a60 = Repeat('a', 60);
  Run({
      {"failure policy rule name is valid", with_rules("{name: superAwesomeFailurePolicyRule}"), {}},
      {"jobset failure policy has an invalid on job failure reason",
       JobSet("failurePolicy: {maxRestarts: 1, rules: [{action: FailJobSet, onJobFailureReasons: [fakeReason]}]}, "
              "replicatedJobs: [" +
              rj + "], successPolicy: {}"),
       // The rule has no name: the mutating webhook would have given it one.
       {Internal("invalid failure policy rule name of length 0, the rule name must be at least 1 characters long "
                 "and at most 128 characters long"),
        Internal("invalid failure policy rule name '', " + kRuleNameError),
        Internal("invalid job failure reason 'fakeReason' in failure policy is not a recognized job failure "
                 "reason")}},
      {"jobset failure policy has an invalid replicated job",
       JobSet("failurePolicy: {maxRestarts: 1, rules: [{name: r, action: FailJobSet, "
              "targetReplicatedJobs: [fakeReplicatedJob]}]}, replicatedJobs: [" +
              rj + "], successPolicy: {}"),
       {Internal("invalid replicatedJob name 'fakeReplicatedJob' in failure policy does not appear in "
                 ".spec.ReplicatedJobs")}},
      {"jobset failure policy rule name is 0 characters long a.k.a unset",
       with_rules("{}"),
       {Internal("invalid failure policy rule name of length 0, the rule name must be at least 1 characters long "
                 "and at most 128 characters long"),
        Internal("invalid failure policy rule name '', " + kRuleNameError)}},
      {"jobset failure policy rule name is greater than 128 characters long",
       with_rules("{name: " + Repeat('a', 129) + "}"),
       {Internal("invalid failure policy rule name of length 129, the rule name must be at least 1 characters "
                 "long and at most 128 characters long")}},
      {"there are two failure policy rules with the same name",
       with_rules("{name: repeatedRuleName}, {name: repeatedRuleName}"),
       {Internal("rule names are not unique, rules with indices [0 1] all have the same name 'repeatedRuleName'")}},
      {"failure policy rule name does not start with an alphabetic character",
       with_rules("{name: 1ruleToRuleThemAll}"),
       {Internal("invalid failure policy rule name '1ruleToRuleThemAll', " + kRuleNameError)}},
      {"failure policy rule name does not end with an alphanumeric nor '_'",
       with_rules("{name: 'ruleToRuleThemAll,'}"),
       {Internal("invalid failure policy rule name 'ruleToRuleThemAll,', " + kRuleNameError)}},
      {"coordinator replicated job does not exist",
       coordinator("{replicatedJob: fake-rjob, jobIndex: 0, podIndex: 0}", ab),
       {Internal("coordinator replicatedJob fake-rjob does not exist")}},
      {"coordinator replicated job missing completions",
       coordinator(
           "{replicatedJob: replicatedjob-a, jobIndex: 0, podIndex: 0}",
           RJob("replicatedjob-a", "groupName: default, replicas: 2, ", "completionMode: Indexed, parallelism: 2, ") +
               ", " +
               RJob("replicatedjob-b", "groupName: default, replicas: 2, ",
                    "completionMode: Indexed, completions: 2, parallelism: 2, ")),
       {Internal("job for coordinator pod must be indexed completion mode, and completions number must be set")}},
      {"coordinator job index invalid",
       coordinator("{replicatedJob: replicatedjob-a, jobIndex: 2, podIndex: 0}", ab),
       {Internal("coordinator job index 2 is invalid for replicatedJob replicatedjob-a")}},
      {"coordinator pod index invalid",
       coordinator("{replicatedJob: replicatedjob-a, jobIndex: 0, podIndex: 2}", ab),
       {Internal("coordinator pod index 2 is invalid for replicatedJob replicatedjob-a job index 0")}},
      {"coordinator label value is too long due to long JobSet name",
       coordinator("{replicatedJob: replicatedjob-a, jobIndex: 0, podIndex: 0}",
                   RJob("replicatedjob-a", "groupName: default, replicas: 1, ", kOnePod), a60),
       {"spec.replicatedJobs[0].name: Invalid value: \"" + a60 +
            "-replicatedjob-a-0\": JobSet name is too long, job names generated for this JobSet will exceed 63 "
            "characters",
        "spec.replicatedJobs[0].name: Invalid value: \"" + a60 +
            "-replicatedjob-a-0\": JobSet name is too long, pod names generated for this JobSet will exceed 63 "
            "characters",
        Internal("spec will lead to invalid label value \"" + a60 + "-replicatedjob-a-0-0." + a60 +
                 "\" for coordinator label \"jobset.sigs.k8s.io/coordinator\" (long JobSet / ReplicatedJob / "
                 "SubDomain name?): must be no more than 63 bytes")}},
      {"coordinator label value is too long due to long ReplicatedJob name",
       coordinator("{replicatedJob: " + a60 + ", jobIndex: 0, podIndex: 0}",
                   RJob(a60, "groupName: default, replicas: 1, ", kOnePod), "jobset"),
       {"spec.replicatedJobs[0].name: Invalid value: \"jobset-" + a60 +
            "-0\": JobSet name is too long, job names generated for this JobSet will exceed 63 characters",
        "spec.replicatedJobs[0].name: Invalid value: \"jobset-" + a60 +
            "-0\": JobSet name is too long, pod names generated for this JobSet will exceed 63 characters",
        Internal("spec will lead to invalid label value \"jobset-" + a60 +
                 "-0-0.jobset\" for coordinator label \"jobset.sigs.k8s.io/coordinator\" (long JobSet / "
                 "ReplicatedJob / SubDomain name?): must be no more than 63 bytes")}},
      {"coordinator label value is too long due to long SubDomain",
       coordinator("{replicatedJob: replicatedjob-a, jobIndex: 0, podIndex: 0}",
                   RJob("replicatedjob-a", "groupName: default, replicas: 1, ", kOnePod), "jobset",
                   "network: {subdomain: " + a60 + "}, "),
       {Internal("spec will lead to invalid label value \"jobset-replicatedjob-a-0-0." + a60 +
                 "\" for coordinator label \"jobset.sigs.k8s.io/coordinator\" (long JobSet / ReplicatedJob / "
                 "SubDomain name?): must be no more than 63 bytes")}},
      {"jobset failure policy rule has RestartJob action and a replicated job with replicas > 1024",
       with_rules("{action: RestartJob, name: restartJobRule}", big),
       {Internal("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action "
                 "and a replicated job with replicas > 1024")},
       restart_job},
      {"jobset failure policy rule has RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > 1024",
       with_rules("{action: RestartJobAndIgnoreMaxRestarts, name: restartJobAndIgnoreMaxRestartsRule}", big),
       {Internal("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action "
                 "and a replicated job with replicas > 1024")},
       restart_job},
      {"jobset failure policy rule has RestartJob action and RestartJob feature gate is disabled",
       with_rules("{action: RestartJob, name: restartJobRule}"),
       {Internal("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when "
                 "RestartJob feature gate is disabled")}},
      {"jobset failure policy rule has RestartJobAndIgnoreMaxRestarts action and RestartJob feature gate is disabled",
       with_rules("{action: RestartJobAndIgnoreMaxRestarts, name: restartJobAndIgnoreMaxRestartsRule}"),
       {Internal("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when "
                 "RestartJob feature gate is disabled")}},
  });
}

TEST_CASE("JobSet ValidateCreate: upstream's dependsOn cases") {
  auto job = [](std::string_view name, std::string_view depends_on = {}) {
    std::string fields = "groupName: default, replicas: 1, ";
    if (!depends_on.empty()) fields = fmt::format("dependsOn: [{}], {}", depends_on, fields);
    return RJob(name, fields);
  };
  auto jobset = [](std::initializer_list<std::string> rjobs) {
    std::string list;
    for (const std::string& r : rjobs) list += (list.empty() ? "" : ", ") + r;
    return JobSet("replicatedJobs: [" + list + "]");
  };
  Run({
      {"DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-1",
       jobset({job("job-1"), job("job-2", "{name: job-1, status: Complete}"),
               job("job-3", "{name: job-1, status: Complete}")}),
       {}},
      {"DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-2",
       jobset({job("job-1"), job("job-2", "{name: job-1, status: Complete}"),
               job("job-3", "{name: job-2, status: Complete}")}),
       {}},
      {"DependsOn is valid since job-3 depends on job-1 and job-2",
       jobset({job("job-1"), job("job-2"),
               job("job-3", "{name: job-1, status: Complete}, {name: job-2, status: Complete}")}),
       {}},
      {"DependsOn is invalid since job-2 depends on job-3",
       jobset({job("job-1"), job("job-2", "{name: job-3, status: Complete}"),
               job("job-3", "{name: job-1, status: Complete}")}),
       {Internal("replicatedJob: job-2 cannot depend on replicatedJob: job-3")}},
      {"DependsOn is invalid since job-2 depends on job-3 and job-1",
       jobset({job("job-1"), job("job-2", "{name: job-1, status: Complete}, {name: job-3, status: Complete}"),
               job("job-3", "{name: job-1, status: Complete}")}),
       {Internal("replicatedJob: job-2 cannot depend on replicatedJob: job-3")}},
      {"job-2 depends on invalid ReplicatedJob",
       jobset({job("job-1"), job("job-2", "{name: invalid, status: Complete}")}),
       {Internal("replicatedJob: job-2 cannot depend on replicatedJob: invalid")}},
      {"dependsOn should not fail if there are no replicated jobs",
       JobSet("successPolicy: {}, replicatedJobs: []"),
       {}},
      {"dependsOn cannot be set for first replicated job",
       jobset({job("job-1", "{name: invalid, status: Complete}")}),
       {Internal("DependsOn can't be set for the first ReplicatedJob"),
        Internal("replicatedJob: job-1 cannot depend on replicatedJob: invalid")}},
  });
}

TEST_CASE("JobSet ValidateCreate: upstream's volumeClaimPolicies cases") {
  const std::string pvc_spec = "spec: {accessModes: [ReadWriteMany], resources: {requests: {storage: 1Gi}}}";
  auto policy = [&](std::string_view name, std::string_view when_deleted = "Delete") {
    return fmt::format("{{templates: [{{metadata: {{name: {}}}, {}}}], retentionPolicy: {{whenDeleted: {}}}}}", name,
                       pvc_spec, when_deleted);
  };
  auto mounting = [](std::string_view rjob, std::string_view volume, std::string_view extra = "") {
    return RJob(rjob, "groupName: default, replicas: 1, ", "",
                fmt::format("{{spec: {{containers: [{{name: test, image: 'bash:latest', volumeMounts: [{{name: {}, "
                            "mountPath: /test/path}}]}}]{}}}}}",
                            volume, extra));
  };
  auto jobset = [](std::string_view policies, std::string_view rjobs, std::string_view name = "js") {
    return JobSet(fmt::format("volumeClaimPolicies: [{}], replicatedJobs: [{}]", policies, rjobs), name);
  };
  const std::string a64 = Repeat('a', 64);
  Run({
      {"volumeClaimPolicy is valid since volume exists in the container",
       jobset(policy("test-volume"), mounting("job-1", "test-volume")),
       {}},
      {"volumeClaimPolicy is valid since volume exists in the initContainer",
       jobset(policy("test-volume"),
              RJob("job-1") + ", " +
                  RJob("job-2", "groupName: default, replicas: 1, ", "",
                       "{spec: {initContainers: [{name: test-init, image: 'bash:latest', volumeMounts: "
                       "[{name: test-volume, mountPath: /test/path}]}]}}")),
       {}},
      {"volumeClaimPolicy is invalid since template names are not unique",
       jobset(policy("duplicate-volume") + ", " + policy("duplicate-volume", "Retain"),
              mounting("job-1", "duplicate-volume")),
       {"spec.volumeClaimPolicies[1].template[0].name: Invalid value: \"duplicate-volume\": names must be unique for "
        "VolumeClaimPolicies template"}},
      {"volumeClaimPolicy is invalid since template name has uppercase letters",
       jobset(policy("InvalidVolumeName"), mounting("job-1", "InvalidVolumeName")),
       {"spec.volumeClaimPolicies[0].template[0].name: Invalid value: \"InvalidVolumeName\": a lowercase RFC 1123 "
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
      {"volumeClaimPolicy is invalid since template name is too long",
       jobset(policy(a64), mounting("job-1", a64)),
       {"spec.volumeClaimPolicies[0].template[0].name: Invalid value: \"" + a64 +
        "\": VolumeClaimPolicies template name is too long"}},
      {"volumeClaimPolicy is invalid since no matching volumeMount in containers",
       jobset(policy("test-volume"), RJob("job-1")),
       {"spec.replicatedJobs: Invalid value: []v1alpha2.ReplicatedJob{...}: replicatedJob containers don't have a "
        "matching volumeMount: test-volume from VolumeClaimPolicies"}},
      {"volumeClaimPolicy is invalid since volume name conflicts with existing volume",
       jobset(policy("conflicting-volume"),
              mounting("job-1", "conflicting-volume", ", volumes: [{name: conflicting-volume, emptyDir: {}}]")),
       {"spec.replicatedJobs[0].template.spec.template.spec.volumes[0].name: Invalid value: \"conflicting-volume\": "
        "volume name conflicts with VolumeClaimPolicy template name: conflicting-volume"}},
      // Upstream's two other cases with a claim that already exists need a cluster to ask: trainer takes
      // none to exist. This one passes either way.
      {"volumeClaimPolicy is valid when existing PVC matches template spec",
       jobset(policy("test-volume", "Retain"), mounting("job-1", "test-volume")),
       {}},
  });
}

TEST_CASE("JobSet ValidateCreate: upstream's InPlaceRestart cases") {
  auto jobset = [](std::string_view job_spec) {
    return JobSet("failurePolicy: {restartStrategy: InPlaceRestart}, replicatedJobs: [" +
                  RJob("job-1", "groupName: default, replicas: 1, ", job_spec) + "]");
  };
  const JobSetFeatureGates on{.in_place_restart = true};
  Run({
      {"InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
       jobset(""),
       {Internal("InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled")}},
      {"InPlaceRestart restart strategy can be set when InPlaceRestart feature gate is enabled",
       jobset("parallelism: 1, completions: 1, backoffLimit: 2147483647, podReplacementPolicy: Failed, "),
       {},
       on},
      {"InPlaceRestart enabled: backoffLimit is not MaxInt32",
       jobset("parallelism: 1, completions: 1, backoffLimit: 0, podReplacementPolicy: Failed, "),
       {"spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: 0: replicatedJob job-1: must be set to "
        "2147483647 (MaxInt32) when in-place restart is enabled"},
       on},
      {"InPlaceRestart enabled: podReplacementPolicy is not Failed",
       jobset("parallelism: 1, completions: 1, backoffLimit: 2147483647, podReplacementPolicy: TerminatingOrFailed, "),
       {"spec.replicatedJobs[0].template.spec.podReplacementPolicy: Invalid value: \"TerminatingOrFailed\": "
        "replicatedJob job-1: must be set to Failed when in-place restart is enabled"},
       on},
      {"InPlaceRestart enabled: completions != parallelism",
       jobset("parallelism: 1, completions: 2, backoffLimit: 2147483647, podReplacementPolicy: Failed, "),
       {"spec.replicatedJobs[0].template.spec.completions: Invalid value: 2: replicatedJob job-1: completions and "
        "parallelism must be set and equal to each other when in-place restart is enabled"},
       on},
      {"InPlaceRestart enabled: completions is nil",
       jobset("parallelism: 1, backoffLimit: 2147483647, podReplacementPolicy: Failed, "),
       {"spec.replicatedJobs[0].template.spec.completions: Invalid value: null: replicatedJob job-1: completions and "
        "parallelism must be set and equal to each other when in-place restart is enabled"},
       on},
      {"InPlaceRestart enabled: parallelism is nil",
       jobset("completions: 1, backoffLimit: 2147483647, podReplacementPolicy: Failed, "),
       {"spec.replicatedJobs[0].template.spec.completions: Invalid value: 1: replicatedJob job-1: completions and "
        "parallelism must be set and equal to each other when in-place restart is enabled"},
       on},
  });
}

TEST_CASE("JobSet ValidateCreate: the CRD's rules on create come first, and alone") {
  Run({
      {"StartupPolicy and DependsOn APIs are mutually exclusive",
       JobSet("startupPolicy: {startupPolicyOrder: InOrder}, replicatedJobs: [" + RJob("a") + ", " +
              RJob("b", "dependsOn: [{name: a, status: Ready}], groupName: " + Repeat('a', 64) + ", replicas: 1, ") +
              "]"),
       {"spec: Invalid value: \"object\": StartupPolicy and DependsOn APIs are mutually exclusive"}},
      {"AnyOrder with DependsOn is accepted",
       JobSet("startupPolicy: {startupPolicyOrder: AnyOrder}, replicatedJobs: [" + RJob("a") + ", " +
              RJob("b", "dependsOn: [{name: a, status: Ready}], groupName: default, replicas: 1, ") + "]"),
       {}},
      {"namespace cannot be set for VolumeClaimPolicies templates",
       JobSet("volumeClaimPolicies: [{templates: [{metadata: {name: v}}]}, {templates: [{metadata: {name: w, "
              "namespace: other}}]}], replicatedJobs: [" +
              RJob("a") + "]"),
       {"spec.volumeClaimPolicies[1]: Invalid value: \"object\": namespace cannot be set for VolumeClaimPolicies "
        "templates"}},
  });
}

TEST_CASE("JobSet ValidateCreate: a name too long carries the longest name, its length and the limit") {
  // A TrainJob of 49 characters against torch-distributed with numNodes 2: node-0-1 is its last Pod.
  const std::string name = Repeat('a', 49);
  Tree jobset = testing::Yaml(JobSet("replicatedJobs: [" +
                                         RJob("node", "groupName: default, replicas: 1, ",
                                              "completionMode: Indexed, completions: 2, parallelism: 2, ") +
                                         "]",
                                     name));
  std::vector<JobSetError> errors = ValidateJobSetCreate(jobset);
  REQUIRE(errors.size() == 1);
  REQUIRE(errors[0].too_long);
  CHECK(errors[0].too_long->kind == JobSetNameTooLong::Kind::kPod);
  CHECK(errors[0].too_long->name == name + "-node-0-1-xxxxx");
  CHECK(errors[0].too_long->length == 64);
  CHECK(errors[0].too_long->limit == 63);
  CHECK(errors[0].field == "spec.replicatedJobs[0].name");
  CHECK(errors[0].node == jobset.Find("spec")->Find("replicatedJobs")->items()[0].Find("name"));
  CHECK(JobSetDenial(name, errors) ==
        "admission webhook \"vjobset.kb.io\" denied the request: JobSet.jobset.x-k8s.io \"" + name +
            "\" is invalid: spec.replicatedJobs[0].name: Invalid value: \"" + name +
            "-node-0\": JobSet name is too long, pod names generated for this JobSet will exceed 63 characters");
  // One character shorter, the Pod name is at the limit.
  Tree shorter = testing::Yaml(JobSet("replicatedJobs: [" +
                                          RJob("node", "groupName: default, replicas: 1, ",
                                               "completionMode: Indexed, completions: 2, parallelism: 2, ") +
                                          "]",
                                      Repeat('a', 48)));
  CHECK(ValidateJobSetCreate(shorter).empty());
}

TEST_CASE("JobSet ValidateJobSetAsSent reads unset fields as the API server's defaulting fills them") {
  const std::string a56 = Repeat('a', 56);
  struct Case {
    const char* name;
    std::string yaml;
    Lines want;
  };
  const Case cases[] = {
      {"replicas 1, groupName default and completionMode Indexed: the Pod name counts",
       JobSet("replicatedJobs: [{name: rj, template: {spec: {completions: 1, template: {}}}}]", a56),
       {"spec.replicatedJobs[0].name: Invalid value: \"" + a56 +
        "-rj-0\": JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"}},
      {"an unnamed rule takes failurePolicyRule<index>, which may repeat a name",
       JobSet("replicatedJobs: [{name: rj, template: {spec: {template: {}}}}], failurePolicy: {rules: [{name: "
              "failurePolicyRule1}, {action: FailJobSet}]}"),
       {Internal("rule names are not unique, rules with indices [0 1] all have the same name 'failurePolicyRule1'")}},
      {"the coordinator's job index counts against the default of one replica",
       JobSet("coordinator: {replicatedJob: rj, jobIndex: 1}, replicatedJobs: [{name: rj, template: {spec: "
              "{completions: 1}}}]"),
       {Internal("coordinator job index 1 is invalid for replicatedJob rj")}},
      {"nothing to refuse once defaulted",
       JobSet("replicatedJobs: [{name: rj, template: {spec: {template: {}}}}]"),
       {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Tree defaulted = testing::Yaml(c.yaml);
    ApplyJobSetSchemaDefaults(defaulted);
    DefaultJobSet(defaulted);
    CHECK(Messages(ValidateJobSetCreate(defaulted)) == c.want);
    CHECK(Messages(ValidateJobSetAsSent(testing::Yaml(c.yaml))) == c.want);
  }
}

TEST_CASE("JobSetDenial lists two or more errors in brackets, once each") {
  std::vector<JobSetError> errors{{JobSetError::Source::kSchema, "spec", "spec: a", nullptr, std::nullopt},
                                  {JobSetError::Source::kSchema, "spec", "spec: b", nullptr, std::nullopt},
                                  {JobSetError::Source::kSchema, "spec", "spec: a", nullptr, std::nullopt}};
  CHECK(JobSetDenial("js", errors) == "JobSet.jobset.x-k8s.io \"js\" is invalid: [spec: a, spec: b]");
}

TEST_CASE("JobSet ValidateUpdate: upstream's cases") {
  const std::string rjobs =
      "replicatedJobs: [" +
      RJob("test-jobset-replicated-job-0", "groupName: default, replicas: 1, ", "parallelism: 1, ") + ", " +
      RJob("test-jobset-replicated-job-1", "groupName: default, replicas: 1, ", "parallelism: 1, ") + "]";
  auto two = [](std::string_view pod = kPod, std::string_view rjob = "test-jobset-replicated-job-0") {
    return "replicatedJobs: [" + RJob(rjob, "groupName: default, replicas: 2, ", "parallelism: 2, ", pod) + "]";
  };
  const std::string annotated =
      "{metadata: {annotations: {key: value}}, spec: {containers: [{name: test, image: "
      "'bash:latest'}]}}";
  const std::string gated =
      "{spec: {schedulingGates: [{name: example.com/gate}], containers: [{name: test, image: "
      "'bash:latest'}]}}";
  auto indexed = [](std::string_view job_spec, std::string_view fields = "groupName: default, ",
                    std::string_view name = "test-jobset-replicated-job-0") {
    return "replicatedJobs: [" + RJob(name, fields, fmt::format("completionMode: Indexed, {}", job_spec)) + "]";
  };
  const std::string immutable = "spec.replicatedJobs: Invalid value: []v1alpha2.ReplicatedJob{...}: field is immutable";
  const JobSetFeatureGates elastic{.elastic_job_set = true};
  struct Case {
    const char* name;
    std::string old_yaml;
    std::string new_yaml;
    Lines want;
    JobSetFeatureGates gates = {};
  };
  const std::string completed = "status: {conditions: [{type: Completed, status: 'True'}]}\n";
  const std::string failed = "status: {conditions: [{type: Failed, status: 'True'}]}\n";
  const Case cases[] = {
      {"update suspend", JobSet("suspend: true, " + rjobs), JobSet(rjobs), {}},
      {"update labels",
       JobSet("suspend: true, " + rjobs),
       "metadata: {name: js, labels: {hello: world}}\nspec: {" + rjobs + "}\n",
       {}},
      {"managedBy is immutable",
       JobSet("managedBy: example.com/old, " + rjobs),
       JobSet("managedBy: example.com/new, " + rjobs),
       {"spec.managedBy: Invalid value: \"example.com/new\": field is immutable"}},
      {"replicated job pod template can be updated for suspended jobset",
       JobSet("suspend: true, " + two()),
       JobSet(two(annotated)),
       {}},
      {"replicated job pod template can be updated for jobset getting suspended",
       JobSet("suspend: false, " + two()),
       JobSet("suspend: true, " + two(annotated)),
       {}},
      {"replicated job pod template cannot be updated for running jobset",
       JobSet(two()),
       JobSet(two(annotated)),
       {immutable}},
      {"schedulingGates for pod template can be updated for suspended JobSet",
       JobSet("suspend: true, " + two()),
       JobSet(two(gated)),
       {}},
      {"schedulingGates for pod template cannot be updated for unsuspended JobSet",
       JobSet(two()),
       JobSet(two(gated)),
       {immutable}},
      {"replicated job name cannot be updated",
       JobSet("suspend: true, " + two()),
       JobSet(two(kPod, "new-replicated-job-name")),
       {immutable}},
      {"valid scaling of parallelism and completions",
       JobSet(indexed("parallelism: 2, completions: 2, ", "groupName: default, replicas: 2, ")),
       JobSet(indexed("parallelism: 8, completions: 8, ", "groupName: default, replicas: 2, ")),
       {},
       elastic},
      {"invalid scaling of parallelism to < 1",
       JobSet(indexed("parallelism: 2, ")),
       JobSet(indexed("parallelism: 0, ")),
       {"spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 0: parallelism must be >= 1"},
       elastic},
      {"invalid scaling of completions to < 1",
       JobSet(indexed("completions: 2, ")),
       JobSet(indexed("completions: 0, ")),
       {"spec.replicatedJobs[0].template.spec.completions: Invalid value: 0: completions must be >= 1"},
       elastic},
      {"cannot scale parallelism if JobSet is Completed",
       JobSet(indexed("parallelism: 2, ")) + completed,
       JobSet(indexed("parallelism: 4, ")),
       {"spec.replicatedJobs[0].template.spec: Forbidden: Cannot mutate parallelism or completions when JobSet is in "
        "a terminal state (Completed or Failed)"},
       elastic},
      {"cannot scale completions if JobSet is Failed",
       JobSet(indexed("completions: 2, ")) + failed,
       JobSet(indexed("completions: 4, ")),
       {"spec.replicatedJobs[0].template.spec: Forbidden: Cannot mutate parallelism or completions when JobSet is in "
        "a terminal state (Completed or Failed)"},
       elastic},
      {"immutability still enforced for other fields during valid scale",
       JobSet(indexed("parallelism: 2, ", "groupName: default, replicas: 1, ")),
       JobSet(indexed("parallelism: 4, ", "groupName: default, replicas: 2, ")),
       {immutable},
       elastic},
      {"invalid scaling of parallelism and completions when feature gate is disabled",
       JobSet(indexed("parallelism: 2, completions: 2, ", "groupName: default, replicas: 2, ")),
       JobSet(indexed("parallelism: 8, completions: 8, ", "groupName: default, replicas: 2, ")),
       {immutable}},
      {"invalid scaling: parallelism and completions must be equal",
       JobSet(indexed("parallelism: 2, completions: 2, ", "groupName: default, replicas: 2, ")),
       JobSet(indexed("parallelism: 4, completions: 5, ", "groupName: default, replicas: 2, ")),
       {"spec.replicatedJobs[0].template.spec.completions: Invalid value: 5: completions must be equal to parallelism "
        "for Elastic Indexed Jobs"},
       elastic},
      {"adding a new ReplicatedJob while suspended does not panic and is rejected",
       JobSet("suspend: true, replicatedJobs: [" + RJob("job-a", "groupName: default, ") + "]"),
       JobSet("suspend: true, replicatedJobs: [" + RJob("job-a", "groupName: default, ") + ", " +
              RJob("job-b", "groupName: default, ") + "]"),
       {immutable}},
      {"reordering ReplicatedJobs evaluates ElasticJobSet scaling correctly by name",
       JobSet("replicatedJobs: [" + RJob("job-a", "groupName: default, ", "completionMode: Indexed, ") + ", " +
              RJob("job-b", "groupName: default, ", "completionMode: Indexed, ") + "]"),
       JobSet("replicatedJobs: [" + RJob("job-b", "groupName: default, ", "completionMode: Indexed, ") + ", " +
              RJob("job-a", "groupName: default, ", "completionMode: Indexed, ") + "]"),
       {immutable},
       elastic},
      {"invalid scaling: immutability enforced for NonIndexed jobs even when ElasticJobSet is enabled",
       JobSet("replicatedJobs: [" +
              RJob("test-jobset-replicated-job-0", "groupName: default, replicas: 1, ",
                   "completionMode: NonIndexed, parallelism: 2, completions: 2, ") +
              "]"),
       JobSet("replicatedJobs: [" +
              RJob("test-jobset-replicated-job-0", "groupName: default, replicas: 1, ",
                   "completionMode: NonIndexed, parallelism: 4, completions: 4, ") +
              "]"),
       {immutable},
       elastic},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(Update(c.old_yaml, c.new_yaml, c.gates) == c.want);
  }
}

TEST_CASE("JobSet ValidateUpdate: the CRD's immutable policies, checked where both old and new set them") {
  const std::string rjobs = "replicatedJobs: [" + RJob("a") + "]";
  CHECK(Update(JobSet("successPolicy: {operator: All}, network: {enableDNSHostnames: true}, " + rjobs),
               JobSet("successPolicy: {operator: Any}, network: {enableDNSHostnames: false}, " + rjobs)) ==
        Lines{"spec.network: Invalid value: \"object\": Value is immutable",
              "spec.successPolicy: Invalid value: \"object\": Value is immutable"});
  CHECK(Update(JobSet("volumeClaimPolicies: [{templates: []}], " + rjobs),
               JobSet("volumeClaimPolicies: [], failurePolicy: {maxRestarts: 2}, " + rjobs)) ==
        Lines{"spec.volumeClaimPolicies: Invalid value: \"array\": Value is immutable"});
  // Absent before: the transition rule does not run; the webhook's own check still does.
  CHECK(Update(JobSet(rjobs), JobSet("startupPolicy: {startupPolicyOrder: InOrder}, " + rjobs)).empty());
}

}  // namespace trainer
