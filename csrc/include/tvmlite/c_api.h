/*
 * tvmlite C ABI.
 *
 * Everything that crosses a language boundary (Cython core, ctypes backend, exported modules) goes through this
 * header. It compiles as C and as C++.
 *
 * Conventions
 * - Functions returning int return 0 on success and -1 on failure. On failure the error is stored in a per-thread
 *   slot; fetch it with TVMLiteErrorMoveFromRaised(). A callee that fails leaves its out-parameters untouched.
 * - "Handle" means a pointer to a TVMLiteObject. A function that "returns a new reference" hands the caller one
 *   strong reference that the caller must release with TVMLiteObjectDecRef(). A "borrowed" pointer stays valid
 *   only while the caller keeps a reference to the object it came from.
 * - A TVMLiteAny is a 16-byte tagged value. In an argument array it is a *view*: it borrows objects and raw
 *   pointers. In a result slot it is *owned*: an object in it carries one strong reference for the receiver, and
 *   raw-pointer kinds (RawStr, ByteArrayPtr, DLTensorPtr) never appear there.
 * - Layouts are fixed for 64-bit targets and checked at compile time below (TVMLITE_STATIC_ASSERT): a 16-byte Any,
 *   a 24-byte object header, cells directly after the header. Bindings that cannot include this header (ctypes)
 *   read every constant and layout fact from TVMLiteGetABIConstants() instead of restating it.
 */
#ifndef TVMLITE_C_API_H_
#define TVMLITE_C_API_H_

#include <stdint.h>
#include <stddef.h>

#include "tvmlite/dlpack.h"

#if defined(_WIN32)
#define TVMLITE_DLL __declspec(dllexport)
#else
#define TVMLITE_DLL __attribute__((visibility("default")))
#endif

/*! \brief A compile-time check that compiles as C11 and as C++11. */
#ifdef __cplusplus
#define TVMLITE_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define TVMLITE_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------------------
 * Type indices
 * ------------------------------------------------------------------------------------------------------------ */

/*!
 * \brief Every value has a type index. Indices below kTVMLiteStaticObjectBegin are plain values held inline in a
 * TVMLiteAny; indices from there on are objects (the Any holds a TVMLiteObject*). Indices never change once given:
 * the static ones are fixed here, the dynamic ones (>= kTVMLiteDynObjectBegin) are handed out at registration.
 */
typedef enum {
  kTVMLiteNone = 0,         /*!< None / nullptr. */
  kTVMLiteInt = 1,          /*!< v_int64. */
  kTVMLiteBool = 2,         /*!< v_int64 is 0 or 1. */
  kTVMLiteFloat = 3,        /*!< v_float64. */
  kTVMLiteOpaquePtr = 4,    /*!< v_ptr, not owned. */
  kTVMLiteDataType = 5,     /*!< v_dtype. */
  kTVMLiteDevice = 6,       /*!< v_device. */
  kTVMLiteDLTensorPtr = 7,  /*!< v_ptr is a borrowed DLTensor*; arguments only. */
  kTVMLiteRawStr = 8,       /*!< v_c_str is a borrowed NUL-terminated UTF-8 string; arguments only. */
  kTVMLiteByteArrayPtr = 9, /*!< v_ptr is a borrowed TVMLiteByteArray*; arguments only. */
  kTVMLiteTensorView = 10,  /*!< v_ptr is a borrowed TVMLiteTensorView*; arguments only. */
  kTVMLiteStaticObjectBegin = 64,
  kTVMLiteObject = 64,   /*!< The root of all objects ("runtime.Object"). */
  kTVMLiteString = 65,   /*!< "runtime.String": TVMLiteStringCell follows the header. */
  kTVMLiteBytes = 66,    /*!< "runtime.Bytes": same layout as String. */
  kTVMLiteError = 67,    /*!< "runtime.Error". */
  kTVMLiteFunction = 68, /*!< "runtime.Function": TVMLiteFunctionCell follows the header. */
  kTVMLiteArray = 69,    /*!< "runtime.Array": TVMLiteSeqCell follows the header. */
  kTVMLiteMap = 70,      /*!< "runtime.Map". */
  kTVMLiteShape = 71,    /*!< "runtime.ShapeTuple": TVMLiteShapeCell follows the header. */
  kTVMLiteNDArray = 72,  /*!< "runtime.NDArray": a DLTensor follows the header. */
  kTVMLiteModule = 73,   /*!< "runtime.Module". */
  kTVMLiteStaticObjectEnd,
  kTVMLiteDynObjectBegin = 128 /*!< First index handed out at run time. */
} TVMLiteTypeIndex;

/* ------------------------------------------------------------------------------------------------------------
 * Objects and values
 * ------------------------------------------------------------------------------------------------------------ */

/*!
 * \brief Header at the start of every object.
 * ref_count is updated atomically; the object is destroyed by deleter(self) when it drops to zero.
 */
typedef struct TVMLiteObject {
  int64_t ref_count;                           /*!< Strong references; atomic. */
  int32_t type_index;                          /*!< Runtime type; never changes after construction. */
  uint32_t reserved;                           /*!< Zero; keeps the header 8-byte aligned. */
  void (*deleter)(struct TVMLiteObject* self); /*!< Frees the object; set by whoever allocated it. */
} TVMLiteObject;

/*! \brief A handle is a pointer to an object header. */
typedef TVMLiteObject* TVMLiteObjectHandle;

/*! \brief A borrowed span of bytes (not NUL-terminated in general). */
typedef struct {
  const char* data;
  int64_t size;
} TVMLiteByteArray;

/*! \brief The 16-byte tagged value used for every argument and result. See the conventions above. */
typedef struct {
  int32_t type_index;
  uint32_t reserved; /*!< Zero. */
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    const char* v_c_str;
    TVMLiteObject* v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
  };
} TVMLiteAny;

/*!
 * \brief A tensor borrowed from a host-language array (numpy) for the duration of one call, that can be turned
 * into an owning NDArray on demand. Passing it costs nothing; a callee that only reads or writes the memory
 * during the call uses `tensor` directly, and one that keeps the tensor (an NDArray parameter, storing the
 * value) calls retain, which returns an NDArray that keeps the host array alive. retain is called on the calling
 * thread, while the call runs; it returns 0, or -1 with the error set.
 */
typedef struct TVMLiteTensorView {
  DLTensor tensor; /*!< Must stay first: a TVMLiteTensorView* is also a DLTensor*. */
  int (*retain)(struct TVMLiteTensorView* self, struct TVMLiteObject** out);
  void* owner; /*!< The host array, for retain. */
} TVMLiteTensorView;

/*! \brief Layout after the header of String and Bytes. data is NUL-terminated and lives as long as the object. */
typedef struct {
  const char* data;
  int64_t size;
} TVMLiteStringCell;

/*! \brief Layout after the header of Array: size owned values starting at data. */
typedef struct {
  TVMLiteAny* data;
  int64_t size;
  int64_t capacity;
} TVMLiteSeqCell;

/*! \brief Layout after the header of ShapeTuple: size int64 dimensions starting at data. */
typedef struct {
  const int64_t* data;
  int64_t size;
} TVMLiteShapeCell;

/*!
 * \brief Layout of an NDArray object: the header, the DLTensor it describes, then DLPack flag bits
 * (DLPACK_FLAG_BITMASK_READ_ONLY: the memory must not be written, e.g. it wraps a Python bytes object).
 */
typedef struct {
  TVMLiteObject header;
  DLTensor tensor;
  uint64_t flags;
} TVMLiteNDArrayObject;

/*! \brief Most dimensions an NDArray may have: the one definition (C++, both Python bindings use it). */
#define kTVMLiteMaxNDim 32

/* The layouts bindings read by address (ctypes restates them as offsets; TVMLITE_OBJECT_CELL relies on them). */
TVMLITE_STATIC_ASSERT(sizeof(TVMLiteObject) == 24, "TVMLiteObject must be 24 bytes");
TVMLITE_STATIC_ASSERT(offsetof(TVMLiteObject, type_index) == 8, "TVMLiteObject.type_index must be at byte 8");
TVMLITE_STATIC_ASSERT(offsetof(TVMLiteObject, deleter) == 16, "TVMLiteObject.deleter must be at byte 16");
TVMLITE_STATIC_ASSERT(sizeof(TVMLiteAny) == 16, "TVMLiteAny must be 16 bytes");
TVMLITE_STATIC_ASSERT(offsetof(TVMLiteAny, v_int64) == 8, "TVMLiteAny's value must be at byte 8");
TVMLITE_STATIC_ASSERT(sizeof(DLDataType) <= 8 && sizeof(DLDevice) <= 8, "dtype and device must fit an Any");
TVMLITE_STATIC_ASSERT(offsetof(TVMLiteNDArrayObject, tensor) == sizeof(TVMLiteObject),
                      "an NDArray's DLTensor must directly follow the header");
TVMLITE_STATIC_ASSERT(offsetof(TVMLiteStringCell, size) == 8 && offsetof(TVMLiteSeqCell, size) == 8 &&
                          offsetof(TVMLiteShapeCell, size) == 8,
                      "cells keep their data pointer at byte 0 and their size at byte 8");
TVMLITE_STATIC_ASSERT(offsetof(TVMLiteTensorView, tensor) == 0, "a TVMLiteTensorView* must be a DLTensor*");

/*! \brief Return a pointer to the cell that follows an object's header. */
#define TVMLITE_OBJECT_CELL(type, handle) ((type*)((char*)(handle) + sizeof(TVMLiteObject)))

/*! \brief Add one strong reference. handle may be NULL (no-op). */
TVMLITE_DLL void TVMLiteObjectIncRef(TVMLiteObjectHandle handle);

/*! \brief Drop one strong reference; destroys the object when it was the last. handle may be NULL (no-op). */
TVMLITE_DLL void TVMLiteObjectDecRef(TVMLiteObjectHandle handle);

/*! \brief Number of objects alive in the process (every type). For leak tests. */
TVMLITE_DLL int64_t TVMLiteObjectLiveCount(void);

/*!
 * \brief Turn an argument view into an owned value: raw strings and byte arrays become String/Bytes objects,
 * a tensor view becomes the NDArray its retain returns, a plain borrowed DLTensor becomes an NDArray view that
 * does NOT own the data (its memory must outlive the result), objects gain a reference. out: an owned value.
 */
TVMLITE_DLL int TVMLiteAnyViewToOwned(const TVMLiteAny* view, TVMLiteAny* out);

/*! \brief Release what an owned value holds (a reference when it is an object) and set it to None. */
TVMLITE_DLL void TVMLiteAnyRelease(TVMLiteAny* value);

/* ------------------------------------------------------------------------------------------------------------
 * Type registry and reflection
 * ------------------------------------------------------------------------------------------------------------ */

/*! \brief Read a field at field_addr into out (an owned value). */
typedef int (*TVMLiteFieldGetter)(void* field_addr, TVMLiteAny* out);
/*! \brief Write value (a view) into the field at field_addr, converting and type-checking it. */
typedef int (*TVMLiteFieldSetter)(void* field_addr, const TVMLiteAny* value);

/*! \brief Field flags. */
typedef enum {
  kTVMLiteFieldWritable = 1,   /*!< Python may assign the attribute. */
  kTVMLiteFieldNoCompare = 2,  /*!< Skipped by structural equality and hashing. */
  kTVMLiteFieldDefinition = 4, /*!< Defines variables (a function's params): structural equality binds them. */
  kTVMLiteFieldOptional = 8,   /*!< None is a value too (Optional[int]); object fields accept None anyway. */
} TVMLiteFieldFlag;

/*! \brief One reflected field. Strings are owned by the registry and live for the process. */
typedef struct {
  TVMLiteByteArray name;
  TVMLiteByteArray type_str; /*!< Human-readable type, e.g. "int", "Array<Expr>". */
  int64_t offset;            /*!< Byte offset from the object header. */
  int32_t static_type_index; /*!< Type index every value of the field has, or -1 when it varies (Any). */
  int32_t flags;             /*!< TVMLiteFieldFlag bits. */
  TVMLiteFieldGetter getter;
  TVMLiteFieldSetter setter;
} TVMLiteFieldInfo;

/*!
 * \brief What the registry knows of a type. Pointers stay valid for the life of the process.
 * ancestors[d] is the type index of the ancestor at depth d (ancestors[0] is runtime.Object); a type's own
 * index is not in the list. IsInstance(t, base) is O(1) when base reserved child slots for t's branch.
 */
typedef struct {
  int32_t type_index;
  int32_t type_depth;
  TVMLiteByteArray type_key;
  const int32_t* ancestors;
  int32_t num_fields;
  const TVMLiteFieldInfo* fields;
  /*! \brief Make a default object for deserialization; NULL if the type cannot be default-constructed. */
  int (*creator)(TVMLiteObjectHandle* out);
} TVMLiteTypeInfo;

/*! \brief Look up a type key. Fails with KeyError when it is not registered. */
TVMLITE_DLL int TVMLiteTypeKeyToIndex(const char* type_key, int32_t* out);

/*! \brief Info of a registered type, or NULL when type_index is unknown. */
TVMLITE_DLL const TVMLiteTypeInfo* TVMLiteGetTypeInfo(int32_t type_index);

/*! \brief 1 when an object of type derived_index is a (possibly indirect) child of base_index, else 0. */
TVMLITE_DLL int TVMLiteTypeIsInstance(int32_t derived_index, int32_t base_index);

/*! \brief One own field of a type defined at run time (see TVMLiteTypeDefineDynamic). Strings are borrowed. */
typedef struct {
  TVMLiteByteArray name;     /*!< Non-empty UTF-8, no NUL byte. */
  TVMLiteByteArray type_str; /*!< Human-readable type, e.g. "int", "demo.Point". */
  /*!
   * \brief The type index every value must have: -1 (any value), kTVMLiteInt, kTVMLiteBool, kTVMLiteFloat,
   * kTVMLiteString, kTVMLiteDataType, kTVMLiteDevice, a registered object type (that type or a child, or None),
   * or kTVMLiteDynFieldSelf for the type being defined (a self reference, as in a linked list).
   */
  int32_t static_type_index;
  int32_t flags; /*!< 0 or kTVMLiteFieldOptional (the field is always writable). */
} TVMLiteDynFieldSpec;

/*! \brief static_type_index of a field whose values are objects of the type being defined. */
#define kTVMLiteDynFieldSelf (-2)

/*!
 * \brief Define an object type at run time (types defined in Python), with all of its own fields, in one atomic
 * step. The layout is the parent's followed by one owned TVMLiteAny slot per field; the parent is runtime.Object or
 * another type defined at run time. A type's layout never changes once defined: defining the same key again with
 * the same parent and the same fields returns the existing index (a module imported twice, a notebook cell run
 * again); any other definition of a taken key fails with ValueError, as do invalid names and field types.
 */
TVMLITE_DLL int TVMLiteTypeDefineDynamic(const char* type_key, int32_t parent_type_index,
                                         const TVMLiteDynFieldSpec* fields, int32_t num_fields, int32_t* out);

/*! \brief 1 when type_index names a type defined with TVMLiteTypeDefineDynamic, else 0. */
TVMLITE_DLL int TVMLiteTypeIsDynamic(int32_t type_index);

/*!
 * \brief Assign a field of obj: checks that the field is writable (AttributeError), converts and checks value
 * against the field's static type (TypeError naming the field), then calls its setter.
 */
TVMLITE_DLL int TVMLiteObjectSetField(TVMLiteObjectHandle obj, const TVMLiteFieldInfo* field, const TVMLiteAny* value);

/*!
 * \brief Construct a dynamic-type object with fields set from values (num_values must equal the field count;
 * each is checked against its field's static type). out receives a new reference.
 */
TVMLITE_DLL int TVMLiteDynObjectCreate(int32_t type_index, const TVMLiteAny* values, int32_t num_values,
                                       TVMLiteObjectHandle* out);

/* ------------------------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------------------------ */

/*!
 * \brief Layout after the header of an Error object. All strings are owned by the error.
 * kind names the Python exception class ("ValueError", "TypeError", ...). payload is an opaque value a language
 * binding may attach (the Cython core stores the original Python exception) and payload_deleter releases it.
 */
typedef struct {
  TVMLiteByteArray kind;
  TVMLiteByteArray message;
  TVMLiteByteArray backtrace;
  void* payload;
  void (*payload_deleter)(void* payload);
} TVMLiteErrorCell;

/*! \brief Make an Error object (new reference in out). backtrace may be NULL. */
TVMLITE_DLL int TVMLiteErrorCreate(const char* kind, const char* message, const char* backtrace,
                                   TVMLiteObjectHandle* out);

/*! \brief Attach an opaque payload to an error; an earlier payload is released first. */
TVMLITE_DLL void TVMLiteErrorSetPayload(TVMLiteObjectHandle error, void* payload,
                                        void (*payload_deleter)(void* payload));

/*! \brief Store error (borrowed; the slot takes its own reference) as this thread's pending error. */
TVMLITE_DLL void TVMLiteErrorSetRaised(TVMLiteObjectHandle error);

/*! \brief Make an Error of the given kind and message and store it as this thread's pending error. */
TVMLITE_DLL void TVMLiteErrorSetRaisedFromCStr(const char* kind, const char* message);

/*!
 * \brief Take this thread's pending error: out receives it (a new reference) and the slot is emptied.
 * out receives NULL when there is none.
 */
TVMLITE_DLL void TVMLiteErrorMoveFromRaised(TVMLiteObjectHandle* out);

/* ------------------------------------------------------------------------------------------------------------
 * Functions
 * ------------------------------------------------------------------------------------------------------------ */

/*!
 * \brief The calling convention of every function object.
 * self is the function object; args are num_args views; result is pre-set to None by the caller and receives an
 * owned value. Returns 0, or -1 with the error stored by TVMLiteErrorSetRaised.
 */
typedef int (*TVMLiteSafeCall)(void* self, const TVMLiteAny* args, int32_t num_args, TVMLiteAny* result);

/*! \brief Function flags. */
typedef enum {
  kTVMLiteFunctionLongRunning = 1,    /*!< Bindings release their interpreter lock around the call. */
  kTVMLiteFunctionReturnsOutputs = 2, /*!< A bound kernel that makes and returns its outputs (graph executor). */
} TVMLiteFunctionFlag;

/*! \brief Layout after the header of a Function object. Call it as cell->safe_call(handle, ...). */
typedef struct {
  TVMLiteSafeCall safe_call;
  int32_t flags;
  int32_t reserved;
  void* resource; /*!< The resource given to TVMLiteFunctionCreate (NULL for C++ functions); read-only. */
} TVMLiteFunctionCell;
TVMLITE_STATIC_ASSERT(offsetof(TVMLiteFunctionCell, flags) == 8, "TVMLiteFunctionCell.flags must be at byte 8");

/*! \brief Call a function object (shorthand for its cell's safe_call). */
TVMLITE_DLL int TVMLiteFunctionCall(TVMLiteObjectHandle func, const TVMLiteAny* args, int32_t num_args,
                                    TVMLiteAny* result);

/*!
 * \brief Wrap a foreign callable. safe_call receives the function object as self; read resource back with
 * TVMLiteFunctionGetResource(self). deleter(resource) runs once when the function object dies, on whatever thread
 * drops the last reference (so a deleter that needs an interpreter lock must take it). out: a new reference.
 */
TVMLITE_DLL int TVMLiteFunctionCreate(void* resource, TVMLiteSafeCall safe_call, void (*deleter)(void* resource),
                                      TVMLiteObjectHandle* out);

/*! \brief The resource pointer given to TVMLiteFunctionCreate (NULL for functions defined in C++). */
TVMLITE_DLL void* TVMLiteFunctionGetResource(TVMLiteObjectHandle func);

/*! \brief Set or clear flag bits (TVMLiteFunctionFlag) on a function object. */
TVMLITE_DLL void TVMLiteFunctionSetFlags(TVMLiteObjectHandle func, int32_t flags);

/*!
 * \brief Register func (borrowed; the registry takes a reference) under name. Fails with ValueError when the name
 * is taken and can_override is 0.
 */
TVMLITE_DLL int TVMLiteFunctionSetGlobal(const char* name, TVMLiteObjectHandle func, int can_override);

/*! \brief Look up a global function. out receives a new reference, or NULL when the name is not registered. */
TVMLITE_DLL int TVMLiteFunctionGetGlobal(const char* name, TVMLiteObjectHandle* out);

/*! \brief Remove a global function; succeeds (and does nothing) when absent. */
TVMLITE_DLL int TVMLiteFunctionRemoveGlobal(const char* name);

/*! \brief All global function names as an Array of String (new reference in out). */
TVMLITE_DLL int TVMLiteFunctionListGlobalNames(TVMLiteObjectHandle* out);

/* ------------------------------------------------------------------------------------------------------------
 * Containers
 * ------------------------------------------------------------------------------------------------------------ */

/*! \brief Make a String (kTVMLiteString) or Bytes (kTVMLiteBytes) object holding a copy of data[0:size]. */
TVMLITE_DLL int TVMLiteStringCreate(int32_t type_index, const char* data, int64_t size, TVMLiteObjectHandle* out);

/*! \brief Make an Array holding owned copies of items[0:num_items] (views; raw strings become String). */
TVMLITE_DLL int TVMLiteArrayCreate(const TVMLiteAny* items, int64_t num_items, TVMLiteObjectHandle* out);

/*!
 * \brief Make a Map from num_pairs key/value pairs laid out as kv[2*i], kv[2*i+1]. A later duplicate key wins.
 * Keys are compared by value for None, int, bool, float and String, by identity for other objects.
 */
TVMLITE_DLL int TVMLiteMapCreate(const TVMLiteAny* kv, int64_t num_pairs, TVMLiteObjectHandle* out);

/*! \brief Number of entries of a Map. */
TVMLITE_DLL int64_t TVMLiteMapSize(TVMLiteObjectHandle map);

/*! \brief Look key up; out receives an owned value. Returns 0 when found, 1 when absent, -1 on error. */
TVMLITE_DLL int TVMLiteMapGet(TVMLiteObjectHandle map, const TVMLiteAny* key, TVMLiteAny* out);

/*! \brief The entry at position index (0 <= index < size, in insertion order) as owned key and value. */
TVMLITE_DLL int TVMLiteMapItemAt(TVMLiteObjectHandle map, int64_t index, TVMLiteAny* key, TVMLiteAny* value);

/*! \brief Make a ShapeTuple holding a copy of dims[0:ndim]. */
TVMLITE_DLL int TVMLiteShapeCreate(const int64_t* dims, int64_t ndim, TVMLiteObjectHandle* out);

/* ------------------------------------------------------------------------------------------------------------
 * NDArray and DLPack
 * ------------------------------------------------------------------------------------------------------------ */

/*! \brief Allocate an uninitialised compact NDArray with 64-byte aligned data on device (CPU only). */
TVMLITE_DLL int TVMLiteNDArrayEmpty(const int64_t* shape, int32_t ndim, DLDataType dtype, DLDevice device,
                                    TVMLiteObjectHandle* out);

/*!
 * \brief Wrap memory owned by someone else. tensor is copied (shape and strides too); its data is not.
 * flags are DLPack flag bits (DLPACK_FLAG_BITMASK_READ_ONLY for read-only memory).
 * deleter(manager_ctx) runs once when the NDArray dies, on any thread, and also when this call fails.
 */
TVMLITE_DLL int TVMLiteNDArrayFromExternal(const DLTensor* tensor, uint64_t flags, void* manager_ctx,
                                           void (*deleter)(void* manager_ctx), TVMLiteObjectHandle* out);

/*! \brief Take ownership of a DLPack (pre-1.0) tensor; its deleter runs when the NDArray dies. */
TVMLITE_DLL int TVMLiteNDArrayFromDLPack(DLManagedTensor* managed, TVMLiteObjectHandle* out);

/*! \brief Take ownership of a DLPack 1.0 tensor; its deleter runs when the NDArray dies. */
TVMLITE_DLL int TVMLiteNDArrayFromDLPackVersioned(DLManagedTensorVersioned* managed, TVMLiteObjectHandle* out);

/*!
 * \brief Export an NDArray as a DLPack (pre-1.0) tensor sharing its memory. The export holds a reference to the
 * array; the consumer must call (*out)->deleter(*out) exactly once. Fails with BufferError for a read-only
 * array: the pre-1.0 format cannot say so (use the versioned export).
 */
TVMLITE_DLL int TVMLiteNDArrayToDLPack(TVMLiteObjectHandle array, DLManagedTensor** out);

/*! \brief As TVMLiteNDArrayToDLPack, for DLPack 1.0 (carries the read-only flag). */
TVMLITE_DLL int TVMLiteNDArrayToDLPackVersioned(TVMLiteObjectHandle array, DLManagedTensorVersioned** out);

/* ------------------------------------------------------------------------------------------------------------
 * Data types
 * ------------------------------------------------------------------------------------------------------------ */

/*! \brief Parse "float32", "int8x4", "bool", "handle", ... Fails with ValueError on anything else. */
TVMLITE_DLL int TVMLiteDataTypeFromString(const char* str, DLDataType* out);

/*! \brief Format a data type as its canonical string (new String reference in out). */
TVMLITE_DLL int TVMLiteDataTypeToString(DLDataType dtype, TVMLiteObjectHandle* out);

/*!
 * \brief Make a device: device_type must be a DLDeviceType value and device_id >= 0 (ValueError otherwise), so no
 * DLDevice that tvmlite hands out holds a value outside its enum.
 */
TVMLITE_DLL int TVMLiteDeviceCreate(int64_t device_type, int64_t device_id, DLDevice* out);

/* ------------------------------------------------------------------------------------------------------------
 * ABI constants
 * ------------------------------------------------------------------------------------------------------------ */

/*! \brief One named fact of this header: an enum value, a sizeof or an offsetof. */
typedef struct {
  const char* name; /*!< As spelled in C: "kTVMLiteInt", "sizeof(TVMLiteAny)", "offsetof(TVMLiteObject, deleter)". */
  int64_t value;
} TVMLiteABIConstant;

/*!
 * \brief The table of this header's constants and layouts, computed by the compiler that built the runtime: every
 * type index, field and function flag, kTVMLiteMaxNDim, the DLPack codes, and sizeof/offsetof of every struct a
 * binding mirrors. It is the source for bindings that cannot include this header (the ctypes backend builds its
 * constants from it and checks its structures against it). out: a static array of num entries; names are unique.
 */
TVMLITE_DLL int TVMLiteGetABIConstants(const TVMLiteABIConstant** out, int32_t* num);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // TVMLITE_C_API_H_
