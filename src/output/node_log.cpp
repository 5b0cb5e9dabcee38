#include "colossalai/output/node_log.hpp"

#include <fmt/core.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace colossalai::output {

NodeLog::NodeLog(NodeOutput& inner, const std::string& dir, const std::string& stem,
                 std::function<void(std::string_view)> report)
    : m_inner(inner), m_report(std::move(report)) {
    for (Stream stream : {Stream::out, Stream::err}) {
        File& target = file(stream);
        target.path = fmt::format("{}/{}.{}", dir, stem, stream == Stream::out ? "out" : "err");
        target.fd.reset(
            ::open(target.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
        if (!target.fd) {
            fail(target, errno);
        }
    }
}

bool NodeLog::accepting(Stream stream) const {
    return m_inner.accepting(stream);
}

void NodeLog::write(Stream stream, std::string_view bytes) {
    File& target = file(stream);
    std::string_view rest = bytes;
    while (target.fd && !rest.empty()) {
        ssize_t written = ::write(target.fd.get(), rest.data(), rest.size());
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            fail(target, written < 0 ? errno : ENOSPC);
            break;
        }
        rest.remove_prefix(static_cast<size_t>(written));
    }
    m_inner.write(stream, bytes);
}

void NodeLog::close(Stream stream) {
    File& target = file(stream);
    // The last chance to hear of a write that failed late (a full or lost network file system).
    if (!target.fd.close()) {
        fail(target, errno);
    }
    m_inner.close(stream);
}

void NodeLog::fail(File& target, int error) {
    target.fd.reset();
    if (m_report) {
        m_report(fmt::format("colossalai: warning: cannot write the log {}: {}; it stops here\n",
                             target.path, std::strerror(error)));
    }
}

std::string log_file_stem(int rank, std::string_view host) {
    std::string stem = fmt::format("{}-", rank);
    for (char c : host) {
        bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_' || c == '@';
        stem += kept ? c : '_';
    }
    return stem;
}

} // namespace colossalai::output
