#include "sample_facts.hpp"

#include "colossalai/check/report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace colossalai::check {
namespace {

using nlohmann::json;

TEST(RenderJson, EverythingKnown) {
    Facts facts = sample::everything_known();
    facts.warnings = {"first warning", "second \"quoted\" warning"};
    facts.torch_nccl = "2.18.1";
    facts.torch_nccl_source = "nvidia-nccl-cu11";
    facts.system_nccl = "2.21.5";
    facts.system_nccl_library = "/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5";
    facts.shm_bytes = 67108864;
    std::string text = render_json(facts, sample::checks(true, true, false, true));
    ASSERT_EQ(text.back(), '\n');
    json expected = json::parse(R"({
      "schema_version": 3,
      "environment": {
        "colossalai_version": "0.2.5",
        "torch_version": "1.13.1",
        "system_cuda_version": "11.7",
        "torch_cuda_version": "11.7",
        "driver_cuda_version": "12.4",
        "gpu_count": "2",
        "gpus": [
          {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"},
          {"name": "NVIDIA A100-SXM4-40GB", "compute_capability": null}
        ],
        "python": "/venv/bin/python3",
        "python_version": "3.10.12",
        "cuda_home": "/usr/local/cuda-11.7",
        "torch_nccl_version": "2.18.1",
        "torch_nccl_source": "nvidia-nccl-cu11",
        "system_nccl_version": "2.21.5",
        "system_nccl_library": "/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5",
        "shm_bytes": "67108864"
      },
      "aot": {"extension_found": true, "torch_version": "1.13", "cuda_version": "11.7",
              "ninja": null, "cxx": null},
      "compatibility": {
        "torch_version_match": true,
        "system_torch_cuda_match": true,
        "system_colossalai_cuda_match": false,
        "driver_supports_torch_cuda": true,
        "torch_cuda_supports_gpus": null,
        "jit_ninja": null,
        "jit_compiler": null,
        "jit_nvcc_matches_torch": null,
        "shm_sufficient": null
      },
      "ok": false,
      "warnings": ["first warning", "second \"quoted\" warning"],
      "advice": [{"section": "compatibility",
                  "text": "Colossal-AI's kernels were built with CUDA 11.7, the system CUDA is 11.7: set CUDA_HOME to a CUDA 11.7 toolkit, or rebuild the kernels with this one: BUILD_EXT=1 pip install --no-cache-dir --force-reinstall colossalai."}]
    })");
    EXPECT_EQ(json::parse(text), expected) << text;
}

TEST(RenderJson, NothingKnownIsAllNull) {
    std::string text = render_json(Facts{}, Checks{});
    json expected = json::parse(R"({
      "schema_version": 3,
      "environment": {
        "colossalai_version": null, "torch_version": null, "system_cuda_version": null,
        "torch_cuda_version": null, "driver_cuda_version": null, "gpu_count": null,
        "gpus": null, "python": null, "python_version": null, "cuda_home": null,
        "torch_nccl_version": null, "torch_nccl_source": null, "system_nccl_version": null,
        "system_nccl_library": null, "shm_bytes": null
      },
      "aot": {"extension_found": null, "torch_version": null, "cuda_version": null,
              "ninja": null, "cxx": null},
      "compatibility": {
        "torch_version_match": null, "system_torch_cuda_match": null,
        "system_colossalai_cuda_match": null, "driver_supports_torch_cuda": null,
        "torch_cuda_supports_gpus": null, "jit_ninja": null, "jit_compiler": null,
        "jit_nvcc_matches_torch": null, "shm_sufficient": null
      },
      "ok": true,
      "warnings": [],
      "advice": [{"section": "environment",
                  "text": "No Python found: activate the training environment or pass --python PATH."}]
    })");
    EXPECT_EQ(json::parse(text), expected) << text;
}

TEST(RenderJson, KeysKeepTheReportsOrder) {
    std::string text = render_json(Facts{}, Checks{});
    size_t schema = text.find("\"schema_version\"");
    size_t environment = text.find("\"environment\"");
    size_t colossalai = text.find("\"colossalai_version\"");
    size_t torch = text.find("\"torch_version\"");
    size_t aot = text.find("\"aot\"");
    size_t compatibility = text.find("\"compatibility\"");
    EXPECT_LT(schema, environment);
    EXPECT_LT(environment, colossalai);
    EXPECT_LT(colossalai, torch);
    EXPECT_LT(torch, aot);
    EXPECT_LT(aot, compatibility);
}

TEST(RenderJson, EmptyGpuListAndFalseExtension) {
    Facts facts;
    facts.gpus = std::vector<Gpu>{};
    facts.aot_extension = false;
    json parsed = json::parse(render_json(facts, Checks{}));
    EXPECT_EQ(parsed["environment"]["gpu_count"], "0");
    EXPECT_EQ(parsed["environment"]["gpus"], json::array());
    EXPECT_EQ(parsed["aot"]["extension_found"], false);
}

TEST(RenderJson, InvalidUtf8StaysValidJson) {
    Facts facts;
    facts.python = std::string("/opt/caf\xe9/bin/python3"); // Latin-1 byte in a path
    facts.gpus = std::vector<Gpu>{{"GPU \xff", {}}};
    std::string text = render_json(facts, Checks{});
    json parsed = json::parse(text); // throws on invalid JSON
    EXPECT_EQ(parsed["environment"]["python"], "/opt/caf\xef\xbf\xbd/bin/python3");
    EXPECT_EQ(parsed["environment"]["gpus"][0]["name"], "GPU \xef\xbf\xbd");
}

} // namespace
} // namespace colossalai::check
