#include "driver_child.hpp"

#include "colossalai/check/driver.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace colossalai::check {

namespace {

// The few driver API entry points used, with the driver's C signatures (CUdevice is an int,
// CUresult an enum the size of an int). Never linked: looked up with dlsym.
using CuInit = int (*)(unsigned int);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuGetErrorName = int (*)(int, const char**);

constexpr int cuda_success = 0;
constexpr int cuda_error_stub_library = 34;
constexpr int cuda_error_no_device = 100;
constexpr int attribute_cc_major = 75; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int attribute_cc_minor = 76; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

// One line per write() so that a child that dies half-way leaves whole lines behind.
void emit(int fd, const char* format, ...) __attribute__((format(printf, 2, 3)));
void emit(int fd, const char* format, ...) {
    char line[1024];
    va_list args;
    va_start(args, format);
    int n = std::vsnprintf(line, sizeof line - 1, format, args);
    va_end(args);
    if (n < 0) {
        return;
    }
    size_t length = std::min(static_cast<size_t>(n), sizeof line - 2);
    for (size_t i = 0; i < length; ++i) {
        if (line[i] == '\n' || line[i] == '\r') {
            line[i] = ' ';
        }
    }
    line[length] = '\n';
    ssize_t ignored = ::write(fd, line, length + 1);
    (void)ignored;
}

template <typename Function>
Function symbol(void* handle, const char* name) {
    return reinterpret_cast<Function>(::dlsym(handle, name));
}

const char* error_name(void* handle, int code) {
    const char* name = nullptr;
    auto get_error_name = symbol<CuGetErrorName>(handle, "cuGetErrorName");
    if (get_error_name == nullptr || get_error_name(code, &name) != cuda_success ||
        name == nullptr) {
        return "unknown error";
    }
    return name;
}

void list_gpus(void* handle, int fd) {
    auto init = symbol<CuInit>(handle, "cuInit");
    auto get_count = symbol<CuDeviceGetCount>(handle, "cuDeviceGetCount");
    auto get_device = symbol<CuDeviceGet>(handle, "cuDeviceGet");
    auto get_name = symbol<CuDeviceGetName>(handle, "cuDeviceGetName");
    auto get_attribute = symbol<CuDeviceGetAttribute>(handle, "cuDeviceGetAttribute");
    if (init == nullptr || get_count == nullptr || get_device == nullptr || get_name == nullptr) {
        emit(fd, "error the driver library lacks cuInit/cuDeviceGetCount/cuDeviceGetName");
        return;
    }
    int rc = init(0);
    if (rc == cuda_error_no_device) {
        emit(fd, "count 0");
        emit(fd, "end");
        return;
    }
    if (rc != cuda_success) {
        emit(fd, "error cuInit failed: %s (%d)", error_name(handle, rc), rc);
        return;
    }
    int count = 0;
    if ((rc = get_count(&count)) != cuda_success) {
        emit(fd, "error cuDeviceGetCount failed: %s (%d)", error_name(handle, rc), rc);
        return;
    }
    emit(fd, "count %d", count);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        int device = 0;
        char name[256] = {};
        if ((rc = get_device(&device, ordinal)) != cuda_success ||
            (rc = get_name(name, sizeof name - 1, device)) != cuda_success) {
            emit(fd, "error GPU %d: %s (%d)", ordinal, error_name(handle, rc), rc);
            return;
        }
        int major = -1;
        int minor = -1;
        bool have_cc = get_attribute != nullptr &&
                       get_attribute(&major, attribute_cc_major, device) == cuda_success &&
                       get_attribute(&minor, attribute_cc_minor, device) == cuda_success;
        if (have_cc) {
            emit(fd, "gpu %d.%d %s", major, minor, name);
        } else {
            emit(fd, "gpu - %s", name);
        }
    }
    emit(fd, "end");
}

} // namespace

void run_driver_probe_child(const char* library, int fd) {
    void* handle = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        ::_exit(0); // no driver: an ordinary machine without NVIDIA GPUs
    }
    struct link_map* map = nullptr;
    const char* path = library;
    if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
        map->l_name[0] != '\0') {
        path = map->l_name;
    }
    emit(fd, "library %s", path);
    char resolved[PATH_MAX];
    if (is_stub_library(path) ||
        (::realpath(path, resolved) != nullptr && is_stub_library(resolved))) {
        ::dlclose(handle); // never call into the stub
        emit(fd, "stub");
        ::_exit(0);
    }
    auto get_version = symbol<CuDriverGetVersion>(handle, "cuDriverGetVersion");
    int version = 0;
    int rc = get_version == nullptr ? -1 : get_version(&version);
    if (rc == cuda_error_stub_library) {
        emit(fd, "stub");
        ::_exit(0);
    }
    if (rc == cuda_success) {
        emit(fd, "version %d", version);
    } else if (get_version == nullptr) {
        emit(fd, "error the driver library lacks cuDriverGetVersion");
    } else {
        emit(fd, "error cuDriverGetVersion failed: %s (%d)", error_name(handle, rc), rc);
    }
    list_gpus(handle, fd);
    ::_exit(0);
}

} // namespace colossalai::check
