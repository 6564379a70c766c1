#include "coordinator/journal_writer.h"

#include <utility>

#include "common/log.h"

namespace tony {

JournalWriter::JournalWriter(asio::io_context& loop, Write write)
    : loop_(loop), write_(std::move(write)) {}

JournalWriter::~JournalWriter() { Close(); }

void JournalWriter::Offer(std::string bytes) {
  if (closed_) return;
  if (in_flight_) {
    waiting_ = std::move(bytes);
    return;
  }
  if (bytes == written_) return;
  written_ = std::move(bytes);
  StartWrite();
}

void JournalWriter::StartWrite() {
  if (writer_.joinable()) writer_.join();  // it ended: its OnWritten ran
  in_flight_ = true;
  writer_ = std::thread([this, bytes = written_]() mutable {
    Status s = write_(bytes);
    asio::post(loop_, [this, s = std::move(s), bytes = std::move(bytes)] { OnWritten(s, bytes); });
  });
}

void JournalWriter::OnWritten(const Status& s, const std::string& bytes) {
  in_flight_ = false;
  ++writes_;
  if (!s.ok()) {
    TONY_LOG(kWarning) << "writing the AM's journal (a later AM attempt recovers the job from it; "
                          "the job goes on): "
                       << s.ToString();
    if (written_ == bytes) written_.clear();  // the next offer tries again, even of these bytes
  }
  if (closed_ || !waiting_) return;
  std::string next = std::move(*waiting_);
  waiting_.reset();
  Offer(std::move(next));
}

void JournalWriter::Close() {
  closed_ = true;
  waiting_.reset();
  if (writer_.joinable()) writer_.join();
}

}  // namespace tony
