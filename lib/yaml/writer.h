// Writes Trees as YAML and JSON the way kubectl prints objects.
//
// YAML follows `kubectl get -o yaml` (sigs.k8s.io/yaml over go-yaml v2): map keys in go-yaml's
// natural order (digit runs compare as numbers), lists not indented under their key, strings
// quoted only when they would read back as another type or cannot be plain, multi-line strings as
// literal blocks. JSON follows `kubectl get -o json`: four-space indent, keys in byte order,
// HTML-safe escapes.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "yaml/tree.h"

namespace trainer {

// Says where a value came from, for a trailing comment; "" for none.
using Explain = std::function<std::string(const Origin&)>;

// Appends `value` as a YAML block document body (no leading "---"). With `explain`, each scalar
// line ends with "  # <explanation of its origin>".
void WriteYaml(const Tree& value, std::string& out, const Explain* explain = nullptr);

// Appends `value` as indented JSON, without a trailing newline.
void WriteJson(const Tree& value, std::string& out, int indent = 0);

// For tests: the block styles libyaml allows for `text` ("psl": plain, single-quoted, literal; "-"
// where not), with or without the fast path for names made of quiet ASCII.
std::string ScalarStylesForTest(std::string_view text, bool fast);
// For tests: whether the writer takes `text` as plain at once, without analysis; `full` is set to
// what the full analysis (the plain style allowed, and not reading as another type) says.
bool PlainAtOnceForTest(std::string_view text, bool* full);

// go-yaml v2's ordering of map keys.
bool YamlKeyLess(std::string_view a, std::string_view b);

}  // namespace trainer
