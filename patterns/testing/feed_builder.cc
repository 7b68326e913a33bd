// SPDX-License-Identifier: Apache-2.0
#include "feed_builder.h"

#include <string>

namespace reco::patterns::testing {
namespace {

// Short: "<what> <n>" stays within 15 bytes for n below 10^6. Long: a suffix takes
// every string past libstdc++'s 15-byte small-string buffer.
std::string Text(const char* what, int n, bool long_text) {
  std::string text = std::string(what) + " " + std::to_string(n % 1000000);
  if (long_text) text += " -- a longer text";
  return text;
}

}  // namespace

void FillPost(int index, bool long_text, feed::v1::Post* post) {
  post->set_post_id(Text("post", index, long_text));
  post->set_title(Text("title", index, long_text));
  post->set_body(Text("body", index, long_text));
  for (int t = 0; t < 3; ++t) post->add_tags(Text("tag", index * 3 + t, long_text));
  for (int t = 0; t < 4; ++t) post->add_topic_ids(static_cast<uint32_t>(index * 4 + t));
  feed::v1::Author* author = post->mutable_author();
  author->set_author_id(Text("au", index % 97, long_text));
  author->set_display_name(Text("name", index % 97, long_text));
  author->set_verified(index % 2 == 0);
  feed::v1::Media* media = post->mutable_media();
  media->set_url(Text("img", index, long_text));
  media->set_alt_text(Text("alt", index, long_text));
  media->set_width(640);
  media->set_height(480);
  feed::v1::Engagement* engagement = post->mutable_engagement();
  engagement->set_likes(index * 7);
  engagement->set_shares(index * 3);
  engagement->set_comments(index);
  feed::v1::Scores* scores = post->mutable_scores();
  scores->set_relevance(1.0f / static_cast<float>(index + 1));
  for (int f = 0; f < 8; ++f) scores->add_features(static_cast<float>(f) / 8);
}

void FillFeed(const feed::v1::FeedRequest& request, feed::v1::FeedResponse* response) {
  const bool long_text = request.long_text();
  response->set_request_id(Text("req", static_cast<int>(request.user_id().size()), long_text));
  response->mutable_posts()->Reserve(static_cast<int>(request.post_count()));
  for (uint32_t i = 0; i < request.post_count(); ++i) FillPost(static_cast<int>(i), long_text, response->add_posts());
  feed::v1::FeedMetadata* metadata = response->mutable_metadata();
  metadata->set_model_version(Text("model", 7, long_text));
  metadata->set_candidates_considered(request.post_count() * 10);
  metadata->set_generated_at_unix_ms(1700000000000);
}

}  // namespace reco::patterns::testing
