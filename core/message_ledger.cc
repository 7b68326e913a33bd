// Measures the ledger of any message. See message_ledger.h.
#include "core/message_ledger.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "core/allocation_counter.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/descriptor.h"
#include "patterns/block_arena.h"

namespace reco {
namespace {

using google::protobuf::Arena;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Where one mode keeps the reply between Acquire() and Release().
class ReplySlot {
 public:
  virtual ~ReplySlot() = default;
  virtual Message* Acquire() = 0;
  virtual void Release(Message* reply) = 0;
};

class HeapSlot final : public ReplySlot {
 public:
  explicit HeapSlot(const Message& prototype) : prototype_(prototype) {}
  Message* Acquire() override { return prototype_.New(); }
  void Release(Message* reply) override { delete reply; }

 private:
  const Message& prototype_;
};

// As ReusedMessageAllocator at steady state: the same message, cleared, every time.
class ReuseSlot final : public ReplySlot {
 public:
  explicit ReuseSlot(const Message& prototype) : reply_(prototype.New()) {}
  Message* Acquire() override { return reply_.get(); }
  void Release(Message* reply) override { reply->Clear(); }

 private:
  std::unique_ptr<Message> reply_;
};

// As ArenaMessageAllocator: one heap object holding the Arena (its holder), default
// ArenaOptions, deleted with the arena's blocks at release.
class ArenaSlot final : public ReplySlot {
 public:
  explicit ArenaSlot(const Message& prototype) : prototype_(prototype) {}
  Message* Acquire() override {
    arena_ = std::make_unique<Arena>();
    return prototype_.New(arena_.get());
  }
  void Release(Message*) override { arena_.reset(); }

 private:
  const Message& prototype_;
  std::unique_ptr<Arena> arena_;
};

// As PooledArenaAllocator at steady state: one pooled arena, bound to the building
// thread before each build (free on an empty arena; without it the initial block
// belongs to whichever thread reset it last), Reset() at release.
class ArenaPoolSlot final : public ReplySlot {
 public:
  ArenaPoolSlot(const Message& prototype, size_t block_bytes) : prototype_(prototype), arena_(block_bytes) {}
  Message* Acquire() override {
    arena_.BindToThisThread();
    return prototype_.New(arena_.get());
  }
  void Release(Message*) override { arena_.get()->Reset(); }

 private:
  const Message& prototype_;
  patterns::BlockArena arena_;
};

std::unique_ptr<ReplySlot> MakeSlot(MemoryMode mode, const Message& prototype, const MessageLedgerOptions& options) {
  switch (mode) {
    case MemoryMode::kHeap:
      return std::make_unique<HeapSlot>(prototype);
    case MemoryMode::kReuse:
      return std::make_unique<ReuseSlot>(prototype);
    case MemoryMode::kArena:
      return std::make_unique<ArenaSlot>(prototype);
    case MemoryMode::kArenaPool:
      return std::make_unique<ArenaPoolSlot>(prototype, options.initial_block_bytes);
  }
  return nullptr;
}

// Copies `from` into the empty (new, cleared or reused) `to` of the same type the way
// generated MergeFrom does, through reflection: each repeated field's array made once
// for its final size, each string copied once, no field list built. A DynamicMessage's
// own MergeFrom (protobuf's ReflectionOps::Merge) does none of that -- it lists the
// fields into a vector, grows arrays element by element and copies each string through
// a temporary -- so it would count protobuf's reflection, not the reply.
void MergeLikeGenerated(const Message& from, Message* to);

template <typename T>
void MergeRepeated(const Reflection& rf, const Message& from, const Reflection& rt, Message* to,
                   const FieldDescriptor* field) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // the only API with the arrays themselves
  rt.MutableRepeatedField<T>(to, field)->MergeFrom(rf.GetRepeatedField<T>(from, field));
#pragma GCC diagnostic pop
}

void MergeRepeatedMessages(const Reflection& rf, const Message& from, const Reflection& rt, Message* to,
                           const FieldDescriptor* field) {
  const int n = rf.FieldSize(from, field);
  if (!field->is_map()) {  // a map's entries live in a map, not in this array
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    google::protobuf::RepeatedPtrField<Message>* array = rt.MutableRepeatedPtrField<Message>(to, field);
#pragma GCC diagnostic pop
    array->Reserve(array->size() + n);
  }
  for (int i = 0; i < n; ++i) MergeLikeGenerated(rf.GetRepeatedMessage(from, field, i), rt.AddMessage(to, field));
}

void MergeRepeatedField(const Reflection& rf, const Message& from, const Reflection& rt, Message* to,
                        const FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return MergeRepeated<int32_t>(rf, from, rt, to, field);
    case FieldDescriptor::CPPTYPE_INT64:
      return MergeRepeated<int64_t>(rf, from, rt, to, field);
    case FieldDescriptor::CPPTYPE_UINT32:
      return MergeRepeated<uint32_t>(rf, from, rt, to, field);
    case FieldDescriptor::CPPTYPE_UINT64:
      return MergeRepeated<uint64_t>(rf, from, rt, to, field);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return MergeRepeated<double>(rf, from, rt, to, field);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return MergeRepeated<float>(rf, from, rt, to, field);
    case FieldDescriptor::CPPTYPE_BOOL:
      return MergeRepeated<bool>(rf, from, rt, to, field);
    case FieldDescriptor::CPPTYPE_ENUM:
      return MergeRepeated<int32_t>(rf, from, rt, to, field);
    case FieldDescriptor::CPPTYPE_STRING: {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      rt.MutableRepeatedPtrField<std::string>(to, field)->MergeFrom(rf.GetRepeatedPtrField<std::string>(from, field));
#pragma GCC diagnostic pop
      return;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return MergeRepeatedMessages(rf, from, rt, to, field);
  }
}

void MergeSingularField(const Reflection& rf, const Message& from, const Reflection& rt, Message* to,
                        const FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return rt.SetInt32(to, field, rf.GetInt32(from, field));
    case FieldDescriptor::CPPTYPE_INT64:
      return rt.SetInt64(to, field, rf.GetInt64(from, field));
    case FieldDescriptor::CPPTYPE_UINT32:
      return rt.SetUInt32(to, field, rf.GetUInt32(from, field));
    case FieldDescriptor::CPPTYPE_UINT64:
      return rt.SetUInt64(to, field, rf.GetUInt64(from, field));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return rt.SetDouble(to, field, rf.GetDouble(from, field));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return rt.SetFloat(to, field, rf.GetFloat(from, field));
    case FieldDescriptor::CPPTYPE_BOOL:
      return rt.SetBool(to, field, rf.GetBool(from, field));
    case FieldDescriptor::CPPTYPE_ENUM:
      return rt.SetEnumValue(to, field, rf.GetEnumValue(from, field));
    // GetString's copy is moved into the field: one buffer, as generated code's copy.
    case FieldDescriptor::CPPTYPE_STRING:
      return rt.SetString(to, field, rf.GetString(from, field));
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return MergeLikeGenerated(rf.GetMessage(from, field), rt.MutableMessage(to, field));
  }
}

void MergeLikeGenerated(const Message& from, Message* to) {
  const Reflection& rf = *from.GetReflection();
  const Reflection& rt = *to->GetReflection();
  const google::protobuf::Descriptor* type = from.GetDescriptor();
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* field = type->field(i);
    if (field->is_repeated()) {
      if (rf.FieldSize(from, field) > 0) MergeRepeatedField(rf, from, rt, to, field);
    } else if (rf.HasField(from, field)) {
      MergeSingularField(rf, from, rt, to, field);
    }
  }
}

size_t SerializeMessageToBuffer(const Message& message, std::string* buffer) {
  size_t size = message.ByteSizeLong();
  if (buffer->size() < size) buffer->resize(size);
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(&(*buffer)[0]));
  return size;
}

ModeLedger MeasureMode(MemoryMode mode, const Message& sample, bool dynamic, const MessageLedgerOptions& options,
                       size_t* serialized_bytes) {
  std::unique_ptr<ReplySlot> slot = MakeSlot(mode, sample, options);
  std::string buffer;  // reused across responses, as a server's write buffer would be
  ModeLedger m;
  m.mode = mode;
  for (int cycle = 0; cycle < options.warmup_responses + options.cycles; ++cycle) {
    const bool measured = cycle >= options.warmup_responses;
    AllocationCounts t0 = AllocationCounter::ThisThread();
    Message* reply = slot->Acquire();
    if (dynamic) {
      MergeLikeGenerated(sample, reply);
    } else {
      reply->MergeFrom(sample);  // the generated MergeFrom: what MergeLikeGenerated imitates
    }
    AllocationCounts t1 = AllocationCounter::ThisThread();
    *serialized_bytes = SerializeMessageToBuffer(*reply, &buffer);
    AllocationCounts t2 = AllocationCounter::ThisThread();
    slot->Release(reply);
    AllocationCounts t3 = AllocationCounter::ThisThread();
    if (measured) {
      m.build.Add(t1 - t0);
      m.serialize.Add(t2 - t1);
      m.release.Add(t3 - t2);
    }
  }
  m.Average(options.cycles);
  return m;
}

void CountString(const std::string& s, MessageShape* shape) {
  ++shape->strings;
  if (s.size() > SmallStringBytes()) ++shape->long_strings;
}

void Describe(const Message& message, MessageShape* shape) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);  // set fields only; repeated ones non-empty
  std::string scratch;
  for (const FieldDescriptor* field : fields) {
    const bool is_string = field->cpp_type() == FieldDescriptor::CPPTYPE_STRING;
    const bool is_message = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (!field->is_repeated()) {
      if (is_string) CountString(reflection->GetStringReference(message, field, &scratch), shape);
      if (is_message) {
        ++shape->sub_messages;
        Describe(reflection->GetMessage(message, field), shape);
      }
      continue;
    }
    const int n = reflection->FieldSize(message, field);
    ++shape->repeated_fields;
    shape->repeated_elements += static_cast<uint64_t>(n);
    for (int i = 0; i < n; ++i) {
      if (is_string) CountString(reflection->GetRepeatedStringReference(message, field, i, &scratch), shape);
      if (is_message) {
        ++shape->sub_messages;
        Describe(reflection->GetRepeatedMessage(message, field, i), shape);
      }
    }
  }
}

// What reuse's Clear() keeps: the top message and, through repeated fields, their
// elements (proto3 singular sub-messages are deleted; proto2 ones are cleared and kept).
bool KeptByClear(const FieldDescriptor* field) {
  return field->is_repeated() || field->file()->syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO2;
}

void AddOverhead(const Message& message, bool kept, DynamicOverhead* o) {
  const Reflection* reflection = message.GetReflection();
  o->serialize_allocs += 2;                // the field list ByteSizeLong and the serializer each build
  if (kept) o->reuse_release_allocs += 1;  // the field list Clear() builds
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  std::string scratch;
  for (const FieldDescriptor* field : fields) {
    if (field->is_packed()) ++o->serialize_allocs;
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING && !field->is_repeated() && kept) {
      // Reflection's ClearField destroys the string; the next build makes it again.
      const bool long_string = reflection->GetStringReference(message, field, &scratch).size() > SmallStringBytes();
      o->reuse_build_allocs += long_string ? 2 : 1;
      o->reuse_release_frees += long_string ? 2 : 1;
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const bool kept_below = kept && KeptByClear(field);
    if (!field->is_repeated()) {
      AddOverhead(reflection->GetMessage(message, field), kept_below, o);
      continue;
    }
    for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
      AddOverhead(reflection->GetRepeatedMessage(message, field, i), kept_below, o);
    }
  }
}

}  // namespace

DynamicOverhead PredictDynamicOverhead(const Message& sample) {
  DynamicOverhead o;
  AddOverhead(sample, /*kept=*/true, &o);
  o.serialize_frees = o.serialize_allocs;
  o.reuse_release_frees += o.reuse_release_allocs;
  return o;
}

size_t SmallStringBytes() { return std::string().capacity(); }

MessageShape DescribeMessage(const Message& message) {
  MessageShape shape;
  Describe(message, &shape);
  return shape;
}

bool IsDynamicMessage(const Message& message) {
  const google::protobuf::Descriptor* type = message.GetDescriptor();
  if (type->file()->pool() != google::protobuf::DescriptorPool::generated_pool()) return true;
  const Message* generated = google::protobuf::MessageFactory::generated_factory()->GetPrototype(type);
  return generated == nullptr || generated->GetReflection() != message.GetReflection();
}

const ModeLedger& MessageLedger::ForMode(MemoryMode mode) const {
  for (const ModeLedger& m : modes) {
    if (m.mode == mode) return m;
  }
  std::fprintf(stderr, "MessageLedger::ForMode: %s was not measured\n", std::string(MemoryModeName(mode)).c_str());
  std::abort();
}

MessageLedger MeasureMessageLedger(const Message& sample, const MessageLedgerOptions& options) {
  MessageLedger ledger;
  ledger.type_name = sample.GetDescriptor()->full_name();
  ledger.dynamic = IsDynamicMessage(sample);
  ledger.shape = DescribeMessage(sample);
  ledger.cycles = options.cycles;
  for (MemoryMode mode : options.modes) {
    ledger.modes.push_back(MeasureMode(mode, sample, ledger.dynamic, options, &ledger.serialized_bytes));
  }
  return ledger;
}

}  // namespace reco
