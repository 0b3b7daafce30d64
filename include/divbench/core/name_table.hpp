// A table of an enum's values and their names (entries with members `value` and `name`): the name of
// a value, the value of a name for an option (UsageError listing the valid names), all values in
// table order. Serves the work bodies (body.cpp) and the lane maps (lane_map.cpp).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "divbench/core/errors.hpp"

namespace divbench {

// The entry of `value`, or nullptr.
template <class Entry, std::size_t N>
const Entry* table_entry(const Entry (&table)[N], decltype(Entry::value) value) {
  for (const auto& e : table)
    if (e.value == value) return &e;
  return nullptr;
}

// The name of `value`, "?" for a value not in the table.
template <class Entry, std::size_t N>
const char* table_name(const Entry (&table)[N], decltype(Entry::value) value) {
  const Entry* e = table_entry(table, value);
  return e ? e->name : "?";
}

// The value named `name`; else UsageError "<unknown> '<name>' (valid: a|b|c)", e.g. unknown =
// "--map: unknown lane map".
template <class Entry, std::size_t N>
decltype(Entry::value) parse_table_name(const Entry (&table)[N], const std::string& name, const std::string& unknown) {
  std::string valid;
  for (const auto& e : table) {
    if (name == e.name) return e.value;
    valid += (valid.empty() ? "" : "|") + std::string(e.name);
  }
  throw UsageError(unknown + " '" + name + "' (valid: " + valid + ")");
}

// Every value of `Table` (a table with linkage), in table order; made once.
template <const auto& Table>
const auto& table_values() {
  static const auto values = [] {
    std::vector<decltype(Table[0].value)> v;
    for (const auto& e : Table) v.push_back(e.value);
    return v;
  }();
  return values;
}

}  // namespace divbench
