// The AM's journal writer (coordinator/journal_writer.h): one write in flight, what is offered
// meanwhile coalesced into the next, a failure retried by the next offer, nothing after Close.
#include "coordinator/journal_writer.h"

#include <gtest/gtest.h>

#include <asio.hpp>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace tony {
namespace {

// A write that records its bytes and then waits until the test releases it.
class GatedWrites {
 public:
  JournalWriter::Write Writer(Status result = Status::Ok()) {
    return [this, result](const std::string& bytes) {
      std::unique_lock<std::mutex> lock(mu_);
      seen_.push_back(bytes);
      const size_t mine = seen_.size();
      released_cv_.wait(lock, [&] { return released_ >= mine; });
      return result;
    };
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    ++released_;
    released_cv_.notify_all();
  }
  std::vector<std::string> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::condition_variable released_cv_;
  std::vector<std::string> seen_;
  size_t released_ = 0;
};

TEST(JournalWriterTest, OneWriteInFlightAndWhatIsOfferedMeanwhileIsCoalescedIntoTheNext) {
  asio::io_context io;
  auto busy = asio::make_work_guard(io);
  GatedWrites gate;
  JournalWriter w(io, gate.Writer());
  w.Offer("a");
  w.Offer("b");
  w.Offer("c");  // replaces b, which is never written
  gate.Release();
  ASSERT_EQ(io.run_one(), 1U);  // a written: c starts
  gate.Release();
  ASSERT_EQ(io.run_one(), 1U);
  EXPECT_EQ(gate.seen(), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(w.writes(), 2);
  w.Offer("c");  // what was written last: nothing to do
  w.Close();
  EXPECT_EQ(gate.seen().size(), 2U);
}

TEST(JournalWriterTest, AFailedWriteIsTriedAgainByTheNextOfferOfTheSameJournal) {
  asio::io_context io;
  auto busy = asio::make_work_guard(io);
  GatedWrites gate;
  JournalWriter w(io, gate.Writer(Unavailable("the NameNode is in safe mode")));
  w.Offer("a");
  gate.Release();
  ASSERT_EQ(io.run_one(), 1U);
  w.Offer("a");
  gate.Release();
  ASSERT_EQ(io.run_one(), 1U);
  EXPECT_EQ(gate.seen(), (std::vector<std::string>{"a", "a"}));
}

TEST(JournalWriterTest, CloseWaitsForTheWriteInFlightAndDropsWhatWaits) {
  asio::io_context io;
  auto busy = asio::make_work_guard(io);
  GatedWrites gate;
  JournalWriter w(io, gate.Writer());
  w.Offer("a");
  w.Offer("b");
  gate.Release();
  w.Close();  // returns once a is written
  ASSERT_EQ(io.run_one(), 1U);
  w.Offer("c");
  EXPECT_EQ(gate.seen(), (std::vector<std::string>{"a"}));
}

}  // namespace
}  // namespace tony
