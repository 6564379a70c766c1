// Status and Result<T>: errors as values across every layer of tony.
//
// Our code does not throw. A function that can fail returns Status (no value) or Result<T>
// (a value or the Status saying why not). Each layer adds context with WithContext() so that the
// message a user finally sees reads like "reading tony.xml: line 3: ...".
//
// Thread-safety: plain values; safe to copy between threads.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tony {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad user input: config, flags, files
  kNotFound,         // a named thing does not exist
  kAlreadyExists,
  kFailedPrecondition,  // the system is not in a state to do this
  kResourceExhausted,   // a request exceeds what the machine or cluster has
  kUnavailable,         // a peer cannot be reached (may be retried)
  kDeadlineExceeded,    // a timeout
  kUnauthenticated,     // missing or wrong job secret / credentials
  kPermissionDenied,
  kCancelled,
  kInternal,  // a broken invariant or an OS call that should not fail
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(std::string_view context) const;
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status DeadlineExceeded(std::string m) {
  return {StatusCode::kDeadlineExceeded, std::move(m)};
}
inline Status Unauthenticated(std::string m) {
  return {StatusCode::kUnauthenticated, std::move(m)};
}
inline Status PermissionDenied(std::string m) {
  return {StatusCode::kPermissionDenied, std::move(m)};
}
inline Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// Status from errno after a failed OS call: "<what>: <strerror(errno)>".
Status ErrnoStatus(std::string_view what, int err);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok() && "Result needs a value or an error");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace tony

#define TONY_CONCAT_INNER_(a, b) a##b
#define TONY_CONCAT_(a, b) TONY_CONCAT_INNER_(a, b)

#define TONY_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::tony::Status tony_status_ = (expr);        \
    if (!tony_status_.ok()) return tony_status_; \
  } while (0)

#define TONY_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()

#define TONY_ASSIGN_OR_RETURN(lhs, expr) \
  TONY_ASSIGN_OR_RETURN_IMPL_(TONY_CONCAT_(tony_result_, __LINE__), lhs, expr)
