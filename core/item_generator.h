// The catalogue's content: deterministic item text and numbers, generated once at
// start-up (core/catalogue.h), never per request.
//
// Two text profiles:
//   realistic  lengths drawn from the ranges a shop's catalogue shows: titles 20-70
//              bytes, descriptions 30-110, urls ~50 -- most strings are over 15 bytes,
//              so each is an allocation of its own, on the heap even when its message
//              is on an Arena (protobuf 3.21);
//   compact    every string 15 bytes or less: libstdc++ keeps it inside the string
//              object, so an Arena holds all of it.
// Items carry every static field (ids, title, description, url, tags, categories,
// price, image, rating, seller, shipping) and no RankingScores: scores are per request
// (core/reply_parts.h).
//
// Example:
//   google::protobuf::RepeatedPtrField<reco::v1::Item> items;
//   reco::GenerateCatalogueItems(/*seed=*/1, /*count=*/10000, reco::v1::TEXT_PROFILE_REALISTIC, &items);
//
// Thread-safety: a pure function of its arguments.
#ifndef ARENA_GRPC_CORE_ITEM_GENERATOR_H_
#define ARENA_GRPC_CORE_ITEM_GENERATOR_H_

#include <cstdint>

#include "google/protobuf/repeated_ptr_field.h"
#include "proto/reco.pb.h"

namespace reco {

// Appends `count` items to *items, the same ones for the same (seed, profile) on
// every run; item i does not depend on `count`.
void GenerateCatalogueItems(uint64_t seed, uint32_t count, v1::TextProfile profile,
                            google::protobuf::RepeatedPtrField<v1::Item>* items);

// Writes a short code such as "k3f9a2c1" (prefix plus `hex_digits` hex digits of
// `value`) into buf; returns its length, 1 + hex_digits. The compact profile's ids.
size_t WriteCode(char prefix, uint64_t value, int hex_digits, char* buf);

}  // namespace reco

#endif  // ARENA_GRPC_CORE_ITEM_GENERATOR_H_
