#pragma once

#include "colossalai/output/sink.hpp"
#include "colossalai/util/fd.hpp"

#include <array>
#include <functional>
#include <string>
#include <string_view>

namespace colossalai::output {

// --log-dir: a NodeOutput that writes every byte of a node's stdout and stderr, unchanged and
// as it arrives, to `<dir>/<stem>.out` and `<dir>/<stem>.err`, then passes it on to `inner`
// (the launcher's rendering). The files hold exactly what the node wrote, whatever becomes of
// the launcher's own stdout (closed, a pager that quit) and however the node ends.
//
// The files are regular files on this machine, written with plain write()s: they go to the page
// cache and never wait for a reader, so the launcher's loop is not held up. A file that cannot
// be opened or written (disk full) is reported once through `report` (a whole line) and given
// up on; the job and the other outputs carry on.
class NodeLog : public NodeOutput {
public:
    NodeLog(NodeOutput& inner, const std::string& dir, const std::string& stem,
            std::function<void(std::string_view)> report);
    NodeLog(const NodeLog&) = delete;
    NodeLog& operator=(const NodeLog&) = delete;

    bool accepting(Stream stream) const override;
    void write(Stream stream, std::string_view bytes) override;
    void close(Stream stream) override;

private:
    struct File {
        std::string path;
        util::Fd fd;
    };

    File& file(Stream stream) { return m_files[stream == Stream::out ? 0 : 1]; }
    void fail(File& file, int error);

    NodeOutput& m_inner;
    std::array<File, 2> m_files;
    std::function<void(std::string_view)> m_report;
};

// The name of a node's log files without the extension: `<rank>-<host>`, the host with every
// byte other than letters, digits, `.`, `-`, `_` and `@` replaced by `_` (`[::1]` -> `___1_`),
// so that it is one file name whatever the host was written as.
std::string log_file_stem(int rank, std::string_view host);

} // namespace colossalai::output
