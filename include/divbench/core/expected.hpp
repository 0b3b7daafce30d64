// Expected<T>: a value, or the one line that says why there is none (a fallible loader's result, in place
// of an optional plus out-parameters). The message is for the user; nothing throws here.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace divbench {

template <class T>
class Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor): return a value as is
  static Expected failure(std::string why) {
    Expected e;
    e.why_ = std::move(why);
    return e;
  }
  explicit operator bool() const { return value_.has_value(); }
  bool has_value() const { return value_.has_value(); }
  // The value; std::logic_error when there is none (a caller that did not check).
  const T& value() const& {
    if (!value_) throw std::logic_error("Expected::value() without a value: " + why_);
    return *value_;
  }
  T& value() & {
    if (!value_) throw std::logic_error("Expected::value() without a value: " + why_);
    return *value_;
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  // Why there is no value ("" when there is one).
  const std::string& error() const { return why_; }
  std::optional<T> optional() const { return value_; }

 private:
  Expected() = default;
  std::optional<T> value_;
  std::string why_;
};

}  // namespace divbench
