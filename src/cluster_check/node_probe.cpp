#include "colossalai/cluster_check/node_probe.hpp"

#include "colossalai/python/environment.hpp"
#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/util/strings.hpp"

namespace colossalai::cluster_check {

namespace {

// $1: --python or empty, $2: the sys.path query, $3: seconds per probe. Stderr is dropped: only
// the sections count. Every external program runs under coreutils' `timeout` when the node has
// it, so that a hung nvcc or nvidia-smi costs at most $3 seconds.
constexpr std::string_view program_text =
    R"sh(exec 2>/dev/null </dev/null
cai_py=$1 cai_q=$2 cai_t= cai_i=
command -v timeout >/dev/null && cai_t="timeout $3"
[ -n "$cai_py" ] || cai_py=$(command -v python3 || command -v python)
echo "@@ python"; [ -n "$cai_py" ] && echo "$cai_py"
cai_s=
[ -n "$cai_py" ] && cai_s=$($cai_t "$cai_py" -c "$cai_q" | tr '\0' '\n')
echo "@@ sys"; [ -n "$cai_s" ] && printf '%s\n' "$cai_s"
[ -n "$cai_s" ] && printf '%s\n' "$cai_s" | sed 1,2d | {
cai_a= cai_b= cai_m= cai_n= cai_k=0
while IFS= read -r d; do
[ -n "$d" ] || continue
if [ -z "$cai_a" ] && { [ -f "$d/torch/__init__.py" ] || [ -f "$d/torch/version.py" ]; }; then
cai_a=1; echo "@@ torch"; echo "$d/torch"
echo "@@ torch_version_py"; cat "$d/torch/version.py"
echo "@@ torch_lib"; ls -1 "$d/torch/lib" | grep '^libnccl\.so'
fi
if [ -z "$cai_b" ] && { [ -f "$d/colossalai/__init__.py" ] || [ -f "$d/colossalai/version.py" ]; }; then
cai_b=1; echo "@@ colossalai"; echo "$d/colossalai"
echo "@@ colossalai_version_py"; cat "$d/colossalai/version.py"
echo "@@ colossalai_c"; ls -1 "$d/colossalai/_C" | grep '\.so$'
fi
for f in "$d"/colossalai-*.dist-info/METADATA; do
if [ -z "$cai_m" ] && [ -f "$f" ]; then cai_m=1; echo "@@ colossalai_metadata"; cat "$f"; fi
done
for f in "$d"/nvidia_nccl_cu*.dist-info/METADATA; do
if [ -z "$cai_n" ] && [ -f "$f" ]; then cai_n=1; echo "@@ nccl_package $f"; cat "$f"; fi
done
for f in "$d"/*.pth; do
[ -f "$f" ] && grep -q __editable__ "$f" && { cai_k=$((cai_k+1)); echo "@@ pth$cai_k $f"; cat "$f"; echo; }
done
for f in "$d"/__editable__*.py; do
[ -f "$f" ] || continue
cai_k=$((cai_k+1)); echo "@@ finder$cai_k $f"; cat "$f"; echo
grep -o "[\"']/[^\"']*/colossalai[\"']" "$f" | tr -d "\"'" | { cai_j=0; while IFS= read -r p; do
cai_j=$((cai_j+1))
[ -f "$p/__init__.py" ] || [ -f "$p/version.py" ] || continue
echo "@@ editable${cai_k}_$cai_j $p"
echo "@@ editable_version${cai_k}_$cai_j"; cat "$p/version.py"
echo "@@ editable_c${cai_k}_$cai_j"; ls -1 "$p/_C" | grep '\.so$'
done; }
done
done
}
cai_h=${CUDA_HOME:-$CUDA_PATH}
if [ -z "$cai_h" ] && cai_c=$(command -v nvcc); then cai_h=$(dirname "$(dirname "$cai_c")"); fi
[ -z "$cai_h" ] && [ -d /usr/local/cuda ] && cai_h=/usr/local/cuda
echo "@@ cuda_home"; [ -n "$cai_h" ] && echo "$cai_h"
echo "@@ nvcc"; [ -n "$cai_h" ] && $cai_t "$cai_h/bin/nvcc" -V
echo "@@ system_nccl"
for d in $(IFS=:; printf '%s\n' $LD_LIBRARY_PATH) ${cai_h:+"$cai_h/lib64"} /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
cai_l=$(ls -1d "$d"/libnccl.so*) && { printf '%s\n' "$cai_l"; cai_i=$d/../include/nccl.h; break; }
done
[ -n "$cai_i" ] && { echo "@@ nccl_header"; grep '^#define NCCL_\(MAJOR\|MINOR\|PATCH\)' "$cai_i"; }
echo "@@ shm"; df -kP /dev/shm
echo "@@ ninja"; command -v ninja
echo "@@ cxx"; command -v "${CXX:-c++}"
if command -v nvidia-smi >/dev/null; then
echo "@@ gpus"; $cai_t nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader
echo "@@ smi"; $cai_t nvidia-smi | grep 'CUDA Version'
fi
echo "@@ end")sh";

} // namespace

const Dump::Section* Dump::find(std::string_view name) const {
    auto it = sections.find(name);
    return it == sections.end() ? nullptr : &it->second;
}

std::string_view node_program() {
    return program_text;
}

namespace {

// The program's arguments: $1, $2, $3.
std::vector<std::string> node_arguments(const std::optional<std::string>& python,
                                        std::chrono::milliseconds probe_timeout) {
    std::vector<std::string> code = python::probe_command("python3");
    long long seconds = (probe_timeout.count() + 999) / 1000;
    return {python.value_or(""), code.at(2), std::to_string(seconds)};
}

} // namespace

std::string node_input(const std::optional<std::string>& python,
                       std::chrono::milliseconds probe_timeout) {
    return ssh::program_input(program_text, node_arguments(python, probe_timeout));
}

std::vector<std::string> node_argv(const std::optional<std::string>& python,
                                   std::chrono::milliseconds probe_timeout) {
    std::vector<std::string> argv = {"/bin/sh", "-c", std::string(program_text),
                                     "colossalai-check"};
    std::vector<std::string> arguments = node_arguments(python, probe_timeout);
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return argv;
}

Dump parse_dump(std::string_view text) {
    Dump dump;
    Dump::Section* current = nullptr;
    for (std::string_view line : util::split_lines(text)) {
        if (line.starts_with("@@ ")) {
            std::string_view header = line.substr(3);
            size_t space = header.find(' ');
            std::string name(header.substr(0, space));
            if (name == "end") {
                dump.complete = true;
                break;
            }
            auto [it, inserted] = dump.sections.try_emplace(name);
            current = inserted ? &it->second : nullptr; // a repeated name is ignored
            if (current != nullptr && space != std::string_view::npos) {
                current->argument = header.substr(space + 1);
            }
            continue;
        }
        if (current != nullptr) {
            current->body.append(line);
            current->body += '\n';
        }
    }
    return dump;
}

} // namespace colossalai::cluster_check
