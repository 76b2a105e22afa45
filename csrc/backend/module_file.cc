/*!
 * \file module_file.cc
 * \brief ReadModuleFile (module_file.h) and its global "runtime.ReadModuleFile"(path, who) -> [graph_json, params].
 */
#include "./module_file.h"

#include <tvmlite/runtime/data_type.h>
#include <tvmlite/runtime/json.h>
#include <tvmlite/runtime/ndarray.h>
#include <tvmlite/runtime/registry.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_set>
#include <vector>

namespace tvmlite {
namespace backend {

using runtime::Any;
using runtime::DataType;
using runtime::NDArray;
using runtime::String;

namespace {

constexpr char kMagic[] = "TVMLITE-GRAPHLIB";  // 16 bytes, no NUL in the file
constexpr char kEnd[8] = {'T', 'V', 'M', 'L', 'E', 'N', 'D', '\0'};
constexpr uint32_t kVersion = 2;
constexpr size_t kAlign = 64;

/*! \brief The file's bytes, 64-byte aligned; shared by the params that view it. */
struct Buffer {
  char* data = nullptr;
  size_t size = 0;
  ~Buffer() { std::free(data); }
};

std::shared_ptr<Buffer> ReadWhole(const std::string& path, const std::string& who) {
  auto fail = [&](int err) {
    TVMLITE_THROW(ValueError) << who << ": cannot read " << path << ": " << std::strerror(err);
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(errno);
  struct stat st;
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
    ::close(fd);
    fail(err);
  }
  auto buf = std::make_shared<Buffer>();
  const size_t want = static_cast<size_t>(st.st_size);
  buf->data = static_cast<char*>(std::aligned_alloc(kAlign, (want + kAlign) / kAlign * kAlign));
  if (buf->data == nullptr) {
    ::close(fd);
    TVMLITE_THROW(MemoryError) << who << ": cannot allocate " << want << " bytes to read " << path;
  }
  while (buf->size < want) {
    ssize_t got = ::read(fd, buf->data + buf->size, want - buf->size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int err = errno;
      ::close(fd);
      fail(err);
    }
    if (got == 0) break;  // the file shrank meanwhile: what was read is checked as it is
    buf->size += static_cast<size_t>(got);
  }
  ::close(fd);
  return buf;
}

/*! \brief Whether an NDArray holds a param of this dtype as written: plain bool/int/uint/float up to 64 bits by
 * their canonical names, bfloat16 and the ml_dtypes low-precision formats (sub-byte ones one byte per element). */
std::optional<DataType> ParamDType(const std::string& name) {
  DataType t;
  try {
    t = DataType(name);
  } catch (const runtime::Error&) {
    return std::nullopt;
  }
  if (t.lanes() != 1 || t.str() != name) return std::nullopt;
  const int bits = t.bits();
  if (t.is_bool() || t.is_bfloat() || t.is_low_precision_float()) return t;
  if (t.is_float()) return bits == 16 || bits == 32 || bits == 64 ? std::optional<DataType>(t) : std::nullopt;
  if (t.is_int() || t.is_uint()) {
    return bits == 2 || bits == 4 || bits == 8 || bits == 16 || bits == 32 || bits == 64 ? std::optional<DataType>(t)
                                                                                         : std::nullopt;
  }
  return std::nullopt;
}

class Reader {
 public:
  Reader(std::shared_ptr<Buffer> buf, std::string path, std::string who)
      : buf_(std::move(buf)), path_(std::move(path)), who_(std::move(who)) {}

  [[noreturn]] void Fail(const std::string& what) const {
    TVMLITE_THROW(ValueError) << who_ << ": " << path_ << " is not a valid tvmlite module: " << what;
  }

  ModuleFile Read() {
    ModuleFile out;
    if (buf_->size < sizeof(kMagic) - 1 || std::memcmp(buf_->data, kMagic, sizeof(kMagic) - 1) != 0) {
      Fail("bad magic (not written by export_library)");
    }
    pos_ = sizeof(kMagic) - 1;
    const uint32_t version = Scalar<uint32_t>("version");
    if (version != 1 && version != kVersion) {
      Fail("version " + std::to_string(version) + ", this tvmlite reads versions 1 and " + std::to_string(kVersion));
    }
    const uint64_t n = Scalar<uint64_t>("graph size");
    out.graph_json.assign(Take(n, "graph"), n);
    if (!runtime::json::IsValidUTF8(out.graph_json)) Fail("the graph is not UTF-8");
    const uint32_t count = Scalar<uint32_t>("param count");
    std::unordered_set<std::string> seen;
    for (uint32_t k = 0; k < count; ++k) {
      std::string name = Text("param name");
      if (!seen.insert(name).second) Fail("param '" + name + "' appears twice");
      out.params.Set(String(name), Param(name, version));
    }
    if (std::memcmp(Take(sizeof(kEnd), "end marker"), kEnd, sizeof(kEnd)) != 0) Fail("bad end marker");
    if (pos_ != buf_->size) Fail("trailing bytes");
    return out;
  }

 private:
  const char* Take(uint64_t n, const std::string& what) {
    if (n > buf_->size - pos_) Fail("truncated (" + what + ")");
    const char* p = buf_->data + pos_;
    pos_ += static_cast<size_t>(n);
    return p;
  }

  template <typename T>
  T Scalar(const std::string& what) {
    T v;
    std::memcpy(&v, Take(sizeof(T), what), sizeof(T));  // little-endian files, little-endian hosts (x86, arm64)
    return v;
  }

  std::string Text(const std::string& what) {
    const uint32_t n = Scalar<uint32_t>(what);
    std::string s(Take(n, what), n);
    if (!runtime::json::IsValidUTF8(s)) Fail(what + " is not UTF-8");
    return s;
  }

  Any Param(const std::string& name, uint32_t version) {
    const std::string quoted = "param '" + name + "'";
    const std::string dtype_name = Text("param dtype");
    std::optional<DataType> dtype = ParamDType(dtype_name);
    if (!dtype) Fail(quoted + " has an unsupported dtype '" + dtype_name + "'");
    const uint32_t ndim = Scalar<uint32_t>("param rank");
    if (ndim > 64) Fail(quoted + " has rank " + std::to_string(ndim));
    std::vector<int64_t> shape(ndim);
    // The element count without wrapping: once past 2^64 it can match no u64 size (unless a dim is 0).
    unsigned __int128 elems = 1;
    bool empty = false;
    for (auto& d : shape) {
      d = Scalar<int64_t>("param shape");
      if (d < 0) Fail(quoted + " has a negative dim");
      if (d == 0) empty = true;
      if (elems >> 64 == 0) elems *= static_cast<uint64_t>(d);
    }
    if (empty) elems = 0;
    const uint64_t nbytes = Scalar<uint64_t>("param size");
    const unsigned __int128 want = elems * static_cast<uint64_t>(std::max(1, (dtype->bits() + 7) / 8));
    if (want != nbytes) {
      std::string dims;
      for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
      Fail(quoted + ": " + std::to_string(nbytes) + " bytes do not hold (" + dims + (shape.size() == 1 ? "," : "") +
           ") of " + dtype_name);
    }
    if (version >= 2) {
      const char* pad = Take((kAlign - pos_ % kAlign) % kAlign, quoted + " padding");
      for (const char* p = pad; p != buf_->data + pos_; ++p) {
        if (*p != 0) Fail(quoted + ": nonzero padding");
      }
    }
    const char* data = Take(nbytes, quoted);
    if (version < 2 || nbytes == 0) {  // unaligned (version 1) or empty: an array of its own
      NDArray a = NDArray::Empty(shape, *dtype);
      if (nbytes) std::memcpy(a->tensor.data, data, nbytes);
      return a;
    }
    DLTensor t{};
    t.data = const_cast<char*>(data);
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int32_t>(ndim);
    t.dtype = *dtype;
    t.shape = shape.data();
    auto* keep = new std::shared_ptr<Buffer>(buf_);
    return NDArray::FromExternal(t, keep, [](void* p) { delete static_cast<std::shared_ptr<Buffer>*>(p); });
  }

  std::shared_ptr<Buffer> buf_;
  std::string path_, who_;
  size_t pos_ = 0;
};

}  // namespace

ModuleFile ReadModuleFile(const std::string& path, const std::string& who) {
  return Reader(ReadWhole(path, who), path, who).Read();
}

TVMLITE_REGISTER_GLOBAL("runtime.ReadModuleFile").set_body_typed([](std::string path, std::string who) {
  ModuleFile f = ReadModuleFile(path, who);
  return runtime::Array<Any>({Any(String(f.graph_json)), Any(f.params)});
});

}  // namespace backend
}  // namespace tvmlite
