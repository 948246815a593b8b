#include "api/object_meta.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>

#include "util/quote.h"

namespace trainer {

namespace {

constexpr std::size_t kLabelMaxLength = 63;
constexpr std::size_t kSubdomainMaxLength = 253;
constexpr std::size_t kTotalAnnotationSizeLimit = 256 * 1024;

constexpr std::string_view kDns1123LabelFormat = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123SubdomainFormat = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kLabelKeyFormat = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelValueFormat = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

// validation.RegexError with examples: the rule, its examples and the expression, as the API
// server words it (with a double space after each example's comma).
std::string RegexError(std::string_view message, std::string_view format,
                       std::initializer_list<std::string_view> examples) {
  std::string out = fmt::format("{} (e.g. ", message);
  bool first = true;
  for (std::string_view example : examples) {
    out += fmt::format("{}'{}', ", first ? "" : " or ", example);
    first = false;
  }
  return out + fmt::format("regex used for validation is '{}')", format);
}

// MaxLenError: util/validation counts "characters", the newer content package "bytes"; both mean bytes.
std::string MaxLenError(std::size_t length, std::string_view unit) {
  return fmt::format("must be no more than {} {}", length, unit);
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool MatchesDns1123Label(std::string_view s) {
  return !s.empty() && IsLowerAlnum(s.front()) && IsLowerAlnum(s.back()) &&
         std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

// Labels of that form joined by dots.
bool MatchesDns1123Subdomain(std::string_view s) {
  for (std::size_t begin = 0;;) {
    std::size_t end = std::min(s.find('.', begin), s.size());
    if (!MatchesDns1123Label(s.substr(begin, end - begin))) return false;
    if (end == s.size()) return true;
    begin = end + 1;
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesLabelKeyName(std::string_view s) {
  return !s.empty() && IsAlnum(s.front()) && IsAlnum(s.back()) &&
         std::all_of(s.begin(), s.end(), [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

std::vector<std::string> Subdomain(std::string_view value, std::string_view unit) {
  std::vector<std::string> errors;
  if (value.size() > kSubdomainMaxLength) errors.push_back(MaxLenError(kSubdomainMaxLength, unit));
  if (!MatchesDns1123Subdomain(value)) {
    errors.push_back(
        RegexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                   "'-' or '.', and must start and end with an alphanumeric character",
                   kDns1123SubdomainFormat, {"example.com"}));
  }
  return errors;
}

std::string LabelKeyNameError() {
  return RegexError(
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
      "character",
      kLabelKeyFormat, {"MyName", "my.name", "123-abc"});
}

std::string InvalidValue(std::string_view value, std::string_view message) {
  return fmt::format("Invalid value: {}: {}", GoQuote(value), message);
}

// strings.ToLower as far as a qualified name can tell: ASCII, and the Kelvin sign, which Go lowers
// to an ASCII k.
std::string ToLower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i, 3) == "\xE2\x84\xAA") {
      out.push_back('k');
      i += 2;
    } else {
      out.push_back(s[i] >= 'A' && s[i] <= 'Z' ? static_cast<char>(s[i] - 'A' + 'a') : s[i]);
    }
  }
  return out;
}

// The position of map[key]'s key, or of the map when it has none.
Origin KeyOrigin(const Tree& map, std::string_view key) {
  for (std::size_t i = 0; i < map.size(); ++i) {
    if (map.KeyAt(i) == key && map.KeyOriginAt(i).HasPosition()) return map.KeyOriginAt(i);
  }
  return map.origin();
}

}  // namespace

std::vector<std::string> IsDNS1123Label(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > kLabelMaxLength) errors.push_back(MaxLenError(kLabelMaxLength, "characters"));
  if (!MatchesDns1123Label(value)) {
    if (MatchesDns1123Subdomain(value)) {
      errors.emplace_back("must not contain dots");
    } else {
      errors.push_back(
          RegexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                     "'-', and must start and end with an alphanumeric character",
                     kDns1123LabelFormat, {"my-name", "123-abc"}));
    }
  }
  return errors;
}

std::vector<std::string> IsDNS1123Subdomain(std::string_view value) { return Subdomain(value, "characters"); }

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errors;
  std::string_view name = value;
  if (std::size_t slash = value.find('/'); slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      return {"a valid label key " + LabelKeyNameError() +
              " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errors.emplace_back("prefix part must be non-empty");
    } else {
      for (std::string& message : Subdomain(prefix, "bytes")) errors.push_back("prefix part " + message);
    }
  }
  if (name.empty()) {
    errors.emplace_back("name part must be non-empty");
  } else if (name.size() > kLabelMaxLength) {
    errors.push_back("name part " + MaxLenError(kLabelMaxLength, "bytes"));
  }
  if (!MatchesLabelKeyName(name)) errors.push_back("name part " + LabelKeyNameError());
  return errors;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > kLabelMaxLength) errors.push_back(MaxLenError(kLabelMaxLength, "bytes"));
  if (!value.empty() && !MatchesLabelKeyName(value)) {
    errors.push_back(
        RegexError("a valid label must be an empty string or consist of alphanumeric characters, '-', "
                   "'_' or '.', and must start and end with an alphanumeric character",
                   kLabelValueFormat, {"MyValue", "my_value", "12345"}));
  }
  return errors;
}

std::vector<Diagnostic> ValidateObjectMeta(const Tree& document, bool namespaced, const std::string& subject) {
  std::vector<Diagnostic> out;
  const Tree* meta = document.IsMap() ? document.Find("metadata") : nullptr;
  if (meta == nullptr || !meta->IsMap()) return out;
  auto add = [&](const Origin& where, std::string field, std::string message) {
    out.push_back(
        Diagnostic{.where = where, .subject = subject, .field = std::move(field), .message = std::move(message)});
  };
  if (const std::string* name = meta->FindString("name"); name && !name->empty()) {
    for (const std::string& message : IsDNS1123Subdomain(*name)) {
      add(KeyOrigin(*meta, "name"), "metadata.name", InvalidValue(*name, message));
    }
  }
  if (const std::string* ns = meta->FindString("namespace"); namespaced && ns && !ns->empty()) {
    for (const std::string& message : IsDNS1123Label(*ns)) {
      add(KeyOrigin(*meta, "namespace"), "metadata.namespace", InvalidValue(*ns, message));
    }
  }
  if (const Tree* labels = meta->Find("labels"); labels && labels->IsMap()) {
    for (std::size_t i = 0; i < labels->size(); ++i) {
      const std::string key(labels->KeyAt(i));
      for (const std::string& message : IsQualifiedName(key)) {
        add(labels->KeyOriginAt(i), "metadata.labels", InvalidValue(key, message));
      }
      const Tree& value = labels->items()[i];
      if (!value.IsString()) continue;
      for (const std::string& message : IsValidLabelValue(value.text())) {
        add(value.origin(), "metadata.labels", InvalidValue(value.text(), message));
      }
    }
  }
  if (const Tree* annotations = meta->Find("annotations"); annotations && annotations->IsMap()) {
    std::size_t total = 0;
    for (std::size_t i = 0; i < annotations->size(); ++i) {
      const std::string key(annotations->KeyAt(i));
      // Annotation keys are qualified names in any case.
      for (const std::string& message : IsQualifiedName(ToLower(key))) {
        add(annotations->KeyOriginAt(i), "metadata.annotations", InvalidValue(key, message));
      }
      const Tree& value = annotations->items()[i];
      total += key.size() + (value.IsString() ? value.text().size() : 0);
    }
    if (total > kTotalAnnotationSizeLimit) {
      add(KeyOrigin(*meta, "annotations"), "metadata.annotations",
          fmt::format("Too long: may not be more than {} bytes", kTotalAnnotationSizeLimit));
    }
  }
  return out;
}

std::optional<Diagnostic> ValidateNamespaceOption(std::string_view name) {
  if (name.empty()) return Diagnostic{.field = "--namespace", .message = "Required value"};
  std::vector<std::string> errors = IsDNS1123Label(name);
  if (errors.empty()) return std::nullopt;
  return Diagnostic{.field = "--namespace", .message = InvalidValue(name, errors.front())};
}

}  // namespace trainer
