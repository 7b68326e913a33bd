// SPDX-License-Identifier: Apache-2.0
// StreamFeed's pages for the streaming patterns' tests: the server side fills page
// `index` with FillPost(), the client side cuts what it must receive from FillFeed()'s
// one-message feed, so a test compares the two builders' output.
//
// Example:
//   feed::v1::FeedRequest request;
//   request.set_post_count(45);
//   request.set_page_size(10);                        // 5 pages: 10, 10, 10, 10, 5 posts
//   std::vector<feed::v1::FeedResponse> pages = ExpectedPages(request);
//   FillFeedPage(request, 4, page);                    // true: the last 5 posts
//   PageLog log;  log.Record(page, build_cost);        // from any thread, no malloc
//
// Thread-safety: the functions keep no state (one caller per message); PageLog may be
// used from any thread.
#ifndef ARENA_GRPC_PATTERNS_TESTING_FEED_PAGES_H_
#define ARENA_GRPC_PATTERNS_TESTING_FEED_PAGES_H_

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "feed.grpc.pb.h"
#include "feed.pb.h"
#include "feed_builder.h"
#include "malloc_counter.h"

namespace reco::patterns::testing {

// A StreamFeed request: `posts` posts in pages of `page_size`.
inline feed::v1::FeedRequest Request(uint32_t posts, uint32_t page_size, bool long_text = false) {
  feed::v1::FeedRequest request;
  request.set_post_count(posts);
  request.set_page_size(page_size);
  request.set_long_text(long_text);
  return request;
}

// Reads every page of one StreamFeed call (a 30 s deadline bounds it) into *pages.
inline grpc::Status ReadAllPages(feed::v1::Feed::Stub* stub, const feed::v1::FeedRequest& request,
                                 std::vector<feed::v1::FeedResponse>* pages) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  std::unique_ptr<grpc::ClientReader<feed::v1::FeedResponse>> reader = stub->StreamFeed(&context, request);
  feed::v1::FeedResponse page;
  while (reader->Read(&page)) pages->push_back(page);
  return reader->Finish();
}

// Posts per page: page_size, or every post in one page when page_size is 0.
inline uint32_t PageSize(const feed::v1::FeedRequest& request) {
  return request.page_size() == 0 ? std::max<uint32_t>(request.post_count(), 1) : request.page_size();
}

// Fills `page` with the posts of page `index` (FillPost, as FillFeed numbers them) and
// returns true, or returns false, leaving `page` alone, when there is no such page.
inline bool FillFeedPage(const feed::v1::FeedRequest& request, uint32_t index, feed::v1::FeedResponse* page) {
  const uint64_t first = static_cast<uint64_t>(index) * PageSize(request);
  if (first >= request.post_count()) return false;
  const uint32_t end = static_cast<uint32_t>(std::min<uint64_t>(first + PageSize(request), request.post_count()));
  page->mutable_posts()->Reserve(static_cast<int>(end - first));
  for (uint32_t i = static_cast<uint32_t>(first); i < end; ++i) {
    FillPost(static_cast<int>(i), request.long_text(), page->add_posts());
  }
  return true;
}

// The pages a stream of `request` must deliver, in order: FillFeed's posts, cut into
// pages (nothing else of FillFeed's message: a page carries posts only).
inline std::vector<feed::v1::FeedResponse> ExpectedPages(const feed::v1::FeedRequest& request) {
  feed::v1::FeedResponse feed;
  FillFeed(request, &feed);
  std::vector<feed::v1::FeedResponse> pages;
  for (int i = 0; i < feed.posts_size(); ++i) {
    if (i % PageSize(request) == 0) pages.emplace_back();
    *pages.back().add_posts() = feed.posts(i);
  }
  return pages;
}

// What a streaming handler built, page by page, from any thread: where each page was
// and what building it cost the building thread. Room for `capacity` pages is
// reserved up front, so Record() mallocs nothing; pages past it are counted only.
class PageLog {
 public:
  explicit PageLog(size_t capacity = 512) : capacity_(capacity) {
    pages_.reserve(capacity);
    builds_.reserve(capacity);
  }
  void Record(const feed::v1::FeedResponse* page, const MallocCounts& build) {
    std::lock_guard<std::mutex> lock(mu_);
    if (pages_.size() == capacity_) {
      ++dropped_;
      return;
    }
    pages_.push_back(page);
    builds_.push_back(build);
  }
  std::vector<const feed::v1::FeedResponse*> pages() const {
    std::lock_guard<std::mutex> lock(mu_);
    return pages_;
  }
  std::vector<MallocCounts> builds() const {
    std::lock_guard<std::mutex> lock(mu_);
    return builds_;
  }
  size_t dropped() const {
    std::lock_guard<std::mutex> lock(mu_);
    return dropped_;
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::vector<const feed::v1::FeedResponse*> pages_;
  std::vector<MallocCounts> builds_;
  size_t dropped_ = 0;
};

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_FEED_PAGES_H_
