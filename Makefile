# Thin wrapper over CMake for the quick start. Everything real is in CMakeLists.txt.
#   make run    install what the server needs (scripts/install-deps --run: no
#               clang, llvm, cmocka or npm test packages), build the `mcchunk`
#               command only, and run the main job (the server)
#   make test   install everything, build everything, and run every test
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: deps deps-run build build-run run test bench clean install

deps:
	@bash scripts/install-deps

deps-run:
	@bash scripts/install-deps --run

# Tests and benchmarks on (they need cmocka and the rest of `deps`).
build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DMCCHUNK_TESTS=ON -DMCCHUNK_BENCH=ON
	cmake --build $(BUILD) -j$(JOBS)

# The command alone: configured without tests and benchmarks, so that
# nothing beyond `deps-run` is needed.
build-run: deps-run
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DMCCHUNK_TESTS=OFF -DMCCHUNK_BENCH=OFF
	cmake --build $(BUILD) -j$(JOBS) --target mcchunk

run: build-run
	@bash scripts/main-job $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: build
	@for b in $(BUILD)/bench_*; do [ -x "$$b" ] && "$$b"; done

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
