#pragma once

#include <string>
#include <utility>

namespace striate {

/// Outcome of an operation that can fail on user input or on the platform. No exception crosses
/// the library's public boundary: functions return a Status whose message a user can act on.
class Status {
public:
    Status() = default;
    static Status error(std::string message) { return Status(std::move(message)); }

    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    const std::string& message() const { return message_; }

private:
    explicit Status(std::string message) : failed_(true), message_(std::move(message)) {}
    bool failed_ = false;
    std::string message_;
};

} // namespace striate
