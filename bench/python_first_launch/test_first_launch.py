"""Tests of the benchmark's machinery that need no GPU: arguments, the no-GPU exit, the cache checks,
the worker's validation on a host-only stand-in path, and the report from made-up samples.

    python3 -m pytest -p no:cacheprovider bench/python_first_launch      # numpy-less Pythons skip some
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from types import SimpleNamespace

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import gpu_probe  # noqa: E402
import open_cost  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402
import process_json  # noqa: E402  (bench/, which run puts on the path)


def test_defaults_measure_every_kernel_and_path():
    args = run.parse_args([])
    assert args.runs == 15
    assert args.kernels == list(run.KERNELS)
    assert args.paths == list(report.PATHS)
    assert args.out.name == "python-first-launch.md" and args.raw == args.out.with_suffix(".json")


def test_repeated_kernels_are_measured_once():
    args = run.parse_args(["--kernel", "saxpy", "--kernel", "saxpy", "--out", "/tmp/x.md"])
    assert args.kernels == ["saxpy"] and args.raw == Path("/tmp/x.json")


@pytest.mark.parametrize("argv", [["--runs", "0"], ["--elements", "0"], ["--timeout", "0"], ["--kernel", "nope"],
                                  ["--path", "nvcc"]])
def test_bad_arguments_exit_2(argv):
    with pytest.raises(SystemExit) as exit_:
        run.parse_args(argv)
    assert exit_.value.code == 2


def test_a_missing_driver_means_no_gpu():
    assert "cannot be loaded" in gpu_probe.no_gpu("libkiln-test-no-such-driver.so.1")


def test_no_gpu_exits_125(monkeypatch, capsys):
    monkeypatch.setattr(gpu_probe, "no_gpu", lambda: "no GPU: test")
    assert run.main(["--out", "/dev/null"]) == 125
    assert "no GPU: test" in capsys.readouterr().err


def test_a_broken_driver_fails(monkeypatch, capsys):
    def broken():
        raise gpu_probe.DriverBroken("cuInit failed with CUresult 999")
    monkeypatch.setattr(gpu_probe, "no_gpu", broken)
    assert run.main([]) == 1
    assert "CUresult 999" in capsys.readouterr().err


def test_missing_kernel_sources_fail(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(gpu_probe, "no_gpu", lambda: None)
    assert run.main(["--kernel-dir", str(tmp_path)]) == 1
    assert "lacks saxpy.cu, scale.cu, block_sum.cu" in capsys.readouterr().err


@pytest.mark.skipif(gpu_probe.no_gpu() is None, reason="this machine has a GPU")
def test_the_script_exits_125_without_a_gpu(tmp_path):
    done = subprocess.run([sys.executable, str(HERE / "run.py"), "--out", str(tmp_path / "r.md")],
                          capture_output=True, text=True)
    assert done.returncode == 125, done.stderr
    assert "no GPU" in done.stderr and not (tmp_path / "r.md").exists()


# --- the cache checks, with a fake worker that writes (or not) into CUPY_CACHE_DIR --------------------
def fake_worker(monkeypatch, writes: bool, settings_seen: list | None = None, **reply):
    """A stand-in for run_worker; returns the calls' extra arguments, and answers `reply` besides the path."""
    calls = []

    def worker(args, extra, cache, kiln_cache=None, settings=None):
        calls.append(extra)
        if settings_seen is not None:
            settings_seen.append(settings)
        if writes:
            (cache / f"{len(list(cache.iterdir()))}.cubin").write_bytes(b"x")
        return {"path": extra[1], **reply}
    monkeypatch.setattr(run, "run_worker", worker)
    return calls


def test_the_ctypes_path_turns_the_calls_in_c_off_and_checks_they_were(monkeypatch, tmp_path):
    settings = []
    fake_worker(monkeypatch, False, settings, native=False)
    run.measure(run.parse_args([]), "saxpy", "kiln-ctypes", tmp_path, 1)
    run.measure(run.parse_args([]), "saxpy", "kiln", tmp_path, 1)
    assert settings == [{"KILN_PYTHON_NATIVE": "off"}, None]
    fake_worker(monkeypatch, False, native=True)
    with pytest.raises(run.RunFailed, match="used kiln._native although KILN_PYTHON_NATIVE=off"):
        run.measure(run.parse_args([]), "saxpy", "kiln-ctypes", tmp_path, 1)


@pytest.mark.parametrize("path, round_, writes, message", [
    ("cupy-cold", 1, False, "wrote nothing to its empty cache"),
    ("cupy-warm", 0, False, "added nothing to the warm cache"),
    ("cupy-warm", 1, True, "the warm CuPy cache missed"),
    ("kiln", 1, True, "something compiled with CuPy"),
    ("kiln-cupy", 0, True, "something compiled with CuPy"),
])
def test_cache_checks_catch_a_compile_where_none_belongs_and_none_where_one_does(
        monkeypatch, tmp_path, path, round_, writes, message):
    fake_worker(monkeypatch, writes)
    with pytest.raises(run.RunFailed, match=message):
        run.measure(run.parse_args([]), "saxpy", path, tmp_path, round_)


def test_cold_caches_are_fresh_and_removed_warm_one_is_kept(monkeypatch, tmp_path):
    fake_worker(monkeypatch, True)
    args = run.parse_args([])
    run.measure(args, "saxpy", "cupy-cold", tmp_path, 1)
    run.measure(args, "saxpy", "cupy-warm", tmp_path, 0)
    assert [p.name for p in tmp_path.iterdir()] == ["warm-cache"]
    fake_worker(monkeypatch, False)
    assert run.measure(args, "saxpy", "cupy-warm", tmp_path, 1) == {"path": "cupy-warm"}


# --- the floor paths' image file ---------------------------------------------------------------------------
IMAGE = {"kernel": "saxpy", "file": "/tmp/images/saxpy.cubin", "lowered_name": "_Z5saxpyfPKfPfi", "kind": "cubin",
         "target": "sm_90", "description": "cubin sm_90 (exact match)", "bytes": 6, "sha256": "ab" * 32}


def test_floor_paths_are_measured_by_default_each_with_its_kiln_path():
    args = run.parse_args([])
    assert set(report.FLOOR_PATHS) == {"cupy-cubin", "cuda-core-cubin"} <= set(args.paths)
    assert set(report.FLOORS) <= set(report.KILN_PATHS) and not set(report.FLOOR_PATHS) & set(report.KILN_PATHS)


@pytest.mark.parametrize("path", ["cupy-cubin", "cuda-core-cubin"])
def test_a_floor_path_gets_the_image_file_and_lowered_name(monkeypatch, tmp_path, path):
    calls = fake_worker(monkeypatch, False)
    run.measure(run.parse_args([]), "saxpy", path, tmp_path, 1, {"saxpy": IMAGE})
    assert calls[0][:2] == ["--path", path]
    assert calls[0][-4:] == ["--image", "/tmp/images/saxpy.cubin", "--lowered-name", "_Z5saxpyfPKfPfi"]


def test_other_paths_get_no_image_file(monkeypatch, tmp_path):
    calls = fake_worker(monkeypatch, False)
    run.measure(run.parse_args([]), "saxpy", "kiln-cupy", tmp_path, 1, {"saxpy": IMAGE})
    assert "--image" not in calls[0] and "--lowered-name" not in calls[0]


def test_a_floor_path_without_a_prepared_image_fails(monkeypatch, tmp_path):
    calls = fake_worker(monkeypatch, False)
    with pytest.raises(run.RunFailed, match="no image file was prepared"):
        run.measure(run.parse_args([]), "saxpy", "cupy-cubin", tmp_path, 1, {"scale<float, 4>": IMAGE})
    assert calls == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path, round_, writes, reply, message", [
    ("cupy-cubin", 1, True, {}, "something compiled with CuPy"),
    ("cuda-core-cubin", 0, True, {}, "something compiled with CuPy"),
    ("cupy-cubin", 1, False, {"loaded": {"libkiln": True}}, "mapped libkiln; a floor path runs without Kiln"),
    ("cuda-core-cubin", 1, False, {"loaded": {"libkiln": True}}, "mapped libkiln"),
    ("kiln-cuda-core", 1, False, {"image": "ptx compute_90 (JIT)"},
     "Kiln loaded ptx compute_90 \\(JIT\\), but the floors load cubin sm_90 \\(exact match\\)"),
])
def test_floor_checks(monkeypatch, tmp_path, path, round_, writes, reply, message):
    fake_worker(monkeypatch, writes, **reply)
    with pytest.raises(run.RunFailed, match=message):
        run.measure(run.parse_args([]), "saxpy", path, tmp_path, round_, {"saxpy": IMAGE})


@pytest.mark.parametrize("path, reply", [
    ("cupy-cubin", {"loaded": {"libkiln": False, "libnvrtc": True}, "image": None}),
    ("kiln-cupy", {"loaded": {"libkiln": True}, "image": "cubin sm_90 (exact match)"}),
    ("kiln-program-warm", {"loaded": {"libkiln": True}, "image": None}),
])
def test_floor_checks_pass_what_belongs(monkeypatch, tmp_path, path, reply):
    fake_worker(monkeypatch, False, **reply)
    run.measure(run.parse_args([]), "saxpy", path, tmp_path, 1, {"saxpy": IMAGE})


def image_writer(monkeypatch, content=b"cubin!", claimed=None):
    """A stand-in for run_worker that answers --write-image as worker.py does, writing `content`."""
    calls = []

    def worker(args, extra, cache, kiln_cache=None, settings=None):
        calls.append(extra)
        assert extra[0] == "--write-image" and extra[2] == "--kernel"
        directory = Path(extra[1])
        directory.mkdir(parents=True, exist_ok=True)
        file = directory / (extra[3].split("<")[0] + ".cubin")
        file.write_bytes(content)
        return dict(IMAGE, kernel=extra[3], file=str(file), bytes=len(content) if claimed is None else claimed)
    monkeypatch.setattr(run, "run_worker", worker)
    return calls


def test_images_are_prepared_once_per_kernel_with_their_sha256(monkeypatch, tmp_path):
    calls = image_writer(monkeypatch)
    images = run.prepare_images(run.parse_args(["--path", "kiln", "--path", "cuda-core-cubin"]), tmp_path)
    assert [call[3] for call in calls] == list(run.KERNELS)
    assert all(call[1] == str(tmp_path / "images") for call in calls)
    assert set(images) == set(run.KERNELS)
    assert images["saxpy"]["sha256"] == hashlib.sha256(b"cubin!").hexdigest()
    assert images["saxpy"]["lowered_name"] == "_Z5saxpyfPKfPfi" and images["saxpy"]["bytes"] == 6


def test_no_floor_path_prepares_no_image(monkeypatch, tmp_path):
    calls = image_writer(monkeypatch)
    assert run.prepare_images(run.parse_args(["--path", "kiln", "--path", "kiln-cupy"]), tmp_path) == {}
    assert calls == []


@pytest.mark.parametrize("content, claimed", [(b"cubin!", 7), (b"", 0)])
def test_an_image_file_that_is_not_the_image_fails(monkeypatch, tmp_path, content, claimed):
    image_writer(monkeypatch, content, claimed)
    with pytest.raises(run.RunFailed, match="the image file .* holds"):
        run.prepare_images(run.parse_args(["--kernel", "saxpy"]), tmp_path)


def test_main_prepares_the_images_before_any_measurement_and_reports_the_floors(monkeypatch, tmp_path):
    monkeypatch.setattr(gpu_probe, "no_gpu", lambda: None)
    monkeypatch.setattr(gpu_probe, "nvidia_driver", lambda: {})
    calls = []
    first = {"kiln-cupy": 1.5, "cupy-cubin": 1.0, "kiln-cuda-core": 0.6, "cuda-core-cubin": 0.55}

    def worker(args, extra, cache, kiln_cache=None, settings=None):
        calls.append(extra)
        if extra[0] == "--environment":
            return {"gpu": "test GPU"}
        if extra[0] == "--write-image":
            file = Path(extra[1]) / "saxpy.cubin"
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(b"cubin!")
            return dict(IMAGE, file=str(file))
        if extra[1] in report.FLOOR_PATHS:
            image = extra[extra.index("--image") + 1]
            assert Path(image).read_bytes() == b"cubin!"
        return sample(extra[1], "saxpy", first[extra[1]])
    monkeypatch.setattr(run, "run_worker", worker)
    out = tmp_path / "r.md"
    argv = ["--kernel", "saxpy", "--runs", "2", "--out", str(out)]
    for path in first:
        argv += ["--path", path]
    assert run.main(argv) == 0
    assert [call[0] for call in calls[:2]] == ["--environment", "--write-image"]
    assert all(call[0] == "--path" for call in calls[2:]) and len(calls) == 2 + 3 * 4
    text = out.read_text()
    assert "| `saxpy` | (2) Kiln through CuPy | 1.500 | +0.50 | 1.003 | +0.50 |" in text
    assert "| `saxpy` | (3) Kiln through cuda.core | 1.091 | +0.05 | 1.000 | +0.05 |" in text
    assert "`saxpy`: the floors loaded Kiln's image from a file: cubin sm_90 (exact match), cubin sm_90, 6 bytes" in text
    raw = json.loads(out.with_suffix(".json").read_text())
    assert raw["images"]["saxpy"]["sha256"] == hashlib.sha256(b"cubin!").hexdigest()


@pytest.mark.parametrize("body, message", [
    ("import sys; print('{\"ok\": 1}'); sys.exit(3)", "exited 3"),
    ("print('no json here')", "exited 0"),
    ("import time; time.sleep(5)", "took longer than"),
])
def test_a_failing_worker_fails_the_run(monkeypatch, tmp_path, body, message):
    (tmp_path / "worker.py").write_text(body)
    monkeypatch.setattr(run, "HERE", tmp_path)
    args = run.parse_args(["--timeout", "1"])
    with pytest.raises(run.RunFailed, match=message):
        run.run_worker(args, [], tmp_path)


# --- the report -----------------------------------------------------------------------------------------
def sample(path, kernel, first, total=None, nvrtc=False):
    return {"path": path, "kernel": kernel, "import_ms": 100.0, "init_ms": 90.0, "alloc_ms": 2.0,
            "prepare_ms": 0.1, "get_ms": first - 0.2, "launch_ms": 0.05, "sync_ms": 0.05,
            "first_launch_ms": first, "total_ms": total if total is not None else 190.0 + first,
            "module_import_ms": {"cupy": 100.0}, "image": "cubin sm_90 (exact match)" if "kiln" in path else None,
            "loaded": {"libnvrtc": nvrtc}, "gc_ms": 0.0, "gc_generations": []}


def test_the_breakdown_says_when_the_collector_ran_in_the_first_launch():
    quiet, collected = sample("kiln", "saxpy", 1.0), sample("kiln", "saxpy", 1.2)
    collected.update(gc_ms=0.14, gc_generations=[0])
    text = report.render([quiet, collected, sample("kiln", "saxpy", 1.1)], {}, {"kernels": ["saxpy"], "runs": 3})
    assert "| 1 of 3 runs, 0.14 |" in text
    older = sample("kiln-cupy", "saxpy", 1.0)
    del older["gc_ms"], older["gc_generations"]   # a sample from before worker.py recorded it
    assert "| — |" in report.render([older], {}, {"kernels": ["saxpy"], "runs": 1})


def test_report_gives_medians_and_ratios():
    samples = [sample("kiln", "saxpy", ms) for ms in (2.0, 1.0, 3.0)]
    samples += [sample("cupy-warm", "saxpy", ms, nvrtc=True) for ms in (10.0, 12.0, 8.0)]
    samples += [sample("cupy-cold", "saxpy", ms, nvrtc=True) for ms in (40.0, 40.0, 40.0)]
    text = report.render(samples, {"gpu": "NVIDIA H100"}, {"kernels": ["saxpy"], "runs": 3})
    assert "- GPU: NVIDIA H100" in text
    assert "| `saxpy` | (1) Kiln, the binding's launch | 100.0 | 90.00 | 2.00 | 192.0 |" in text
    # first launch 2 / warm 10, / cold 40; total 192 / 200
    assert "| `saxpy` | (1) Kiln, the binding's launch | 0.200 | 0.050 | 0.960 |" in text
    assert "`saxpy`: Kiln loaded cubin sm_90 (exact match)" in text
    assert "(5) CuPy RawModule, warm cache: imports (median ms) cupy 100.0; libnvrtc mapped in 3 of 3" in text
    assert "(2) Kiln through CuPy" not in text  # a path not measured has no row


def test_report_compares_each_kiln_path_with_its_floor():
    samples = [sample("kiln-cupy", "saxpy", ms) for ms in (1.5, 1.4, 1.6)]
    samples += [sample("cupy-cubin", "saxpy", ms) for ms in (1.0, 0.9, 1.1)]
    samples += [sample("kiln-cuda-core", "saxpy", ms, total=200.0) for ms in (0.6, 0.6, 0.7)]
    samples += [sample("cuda-core-cubin", "saxpy", ms, total=210.0) for ms in (0.55, 0.5, 0.6)]
    image = dict(IMAGE, sha256="0123456789abcdef" * 4)
    text = report.render(samples, {}, {"kernels": ["saxpy"], "runs": 3}, {"saxpy": image})
    assert "| `saxpy` | (7) floor of (2): CuPy RawModule(path=) on Kiln's image | 100.0 | 90.00 | 1.00 | 191.0 |" in text
    assert "| `saxpy` | (8) floor of (3): cuda.core ObjectCode on Kiln's image | 100.0 | 90.00 | 0.55 | 210.0 |" in text
    assert ("| kernel | Kiln path | first launch ÷ floor | Kiln's share of the first launch (ms) | "
            "total ÷ floor total | Kiln's share of the total (ms) |") in text
    # first launch 1.5 / 1.0, 1.5 - 1.0; total 191.5 / 191.0
    assert "| `saxpy` | (2) Kiln through CuPy | 1.500 | +0.50 | 1.003 | +0.50 |" in text
    # first launch 0.6 / 0.55; total 200 / 210: Kiln's share is negative
    assert "| `saxpy` | (3) Kiln through cuda.core | 1.091 | +0.05 | 0.952 | -10.00 |" in text
    assert "- first launch: 1 of 2 within 1.1× of the floor (largest ratio 1.500)" in text
    assert "- total: 2 of 2 within 1.1× of the floor (largest ratio 1.003)" in text
    assert ("- `saxpy`: the floors loaded Kiln's image from a file: cubin sm_90 (exact match), cubin sm_90, "
            "6 bytes, sha256 0123456789abcdef, kernel `_Z5saxpyfPKfPfi`") in text
    # the floors are not Kiln paths: no row of their own against CuPy's warm and cold caches
    assert "| `saxpy` | (7) floor of (2): CuPy RawModule(path=) on Kiln's image | — |" not in text
    assert text.count("Kiln loaded cubin sm_90 (exact match)") == 1


def test_report_floor_rows_need_both_sides_for_a_figure():
    text = report.render([sample("cupy-cubin", "saxpy", 1.0), sample("kiln-cuda-core", "saxpy", 1.0)], {},
                         {"kernels": ["saxpy"], "runs": 1})
    assert "| `saxpy` | (2) Kiln through CuPy | — | — | — | — |" in text
    assert "| `saxpy` | (3) Kiln through cuda.core | — | — | — | — |" in text
    assert "of the floor (largest ratio" not in text  # no pair with both sides to count


def test_report_without_floor_or_kiln_cupy_rows_has_no_floor_table():
    text = report.render([sample("kiln", "saxpy", 1.0), sample("cupy-warm", "saxpy", 10.0)], {},
                         {"kernels": ["saxpy"], "runs": 1})
    assert "against its floor" not in text and "the floors loaded" not in text


def test_report_without_cupy_rows_shows_no_ratio():
    text = report.render([sample("kiln-cuda-core", "block_sum<float, 256>", 1.0)], {},
                         {"kernels": ["block_sum<float, 256>"], "runs": 1})
    assert "| `block_sum<float, 256>` | (3) Kiln through cuda.core | — | — | — |" in text


def test_stats_of_one_and_many():
    assert report.stats([5.0]) == (5.0, 5.0, 5.0)
    median, low, high = report.stats([float(v) for v in range(1, 12)])
    assert (median, low, high) == (6.0, 2.0, 10.0)


# --- the worker, on a stand-in path that computes on the host (needs numpy) --------------------------------
class HostPath:
    """Does each step with numpy; `broken` makes the kernel write a wrong value."""
    broken = False

    def __init__(self, case, source, image=None):
        self.case, self.module_import_ms = case, {"numpy": 0.0}

    def import_modules(self): pass
    def init_cuda(self): pass
    def prepare(self): pass
    def get_kernel(self): pass
    def synchronize(self): pass
    def image_description(self): return "host"
    def native_calls(self): return None

    def allocate(self, host):
        self.arrays = host

    def launch(self, grid, args):
        expected = self.case.expected(self.arrays, int(args[-1]))
        self.arrays[self.case.output] = expected.astype(self.arrays[self.case.output].dtype)
        if self.broken:
            self.arrays[self.case.output][-1] += 1

    def read(self, name):
        return self.arrays[name]


@pytest.fixture
def worker(monkeypatch):
    pytest.importorskip("numpy")
    import launch_paths
    import worker as worker_module
    monkeypatch.setitem(launch_paths.PATHS, "host", HostPath)
    return worker_module


@pytest.mark.parametrize("kernel", run.KERNELS)
def test_worker_times_and_checks_each_kernel(worker, tmp_path, kernel):
    (tmp_path / worker.cases.CASES[kernel].source).write_text("// source")
    result = worker.measure("host", kernel, tmp_path, 1000)
    assert result["image"] == "host" and result["kernel"] == kernel
    assert result["total_ms"] == pytest.approx(result["import_ms"] + result["init_ms"] + result["first_launch_ms"])
    json.dumps(result)  # what run.py reads


def test_worker_fails_on_a_wrong_result(worker, tmp_path, monkeypatch):
    monkeypatch.setattr(HostPath, "broken", True)
    (tmp_path / "block_sum.cu").write_text("// source")
    with pytest.raises(SystemExit, match=r"path host: block_sum<float, 256>: 1 of 4 elements of out are wrong"):
        worker.measure("host", "block_sum<float, 256>", tmp_path, 1000)


def test_kernel_and_path_names_agree_across_files(worker):
    import launch_paths
    assert set(run.KERNELS) == set(worker.cases.CASES)
    assert set(report.PATHS) | {"host"} == set(launch_paths.PATHS)
    assert run.DEFAULT_ELEMENTS == worker.cases.DEFAULT_ELEMENTS


# --- the worker's floor paths and --write-image, on stand-ins for CuPy, cuda.core and the wheel (numpy) ------
LOWERED = "_Z5saxpyfPKfPfi"


def saxpy_on(a, x, y, n):
    y[:n] = a * x[:n] + y[:n]


def fake_cupy(loads: list):
    """Enough of CuPy for CupyArrays and RawModule(path=...): the module records what it loads."""
    np = pytest.importorskip("numpy")
    cp = types.ModuleType("cupy")
    cp.asarray = lambda array: np.array(array, copy=True)
    cp.asnumpy = lambda array: np.array(array, copy=True)
    cp.cuda = SimpleNamespace(Device=lambda ordinal: SimpleNamespace(use=lambda: None),
                              runtime=SimpleNamespace(free=lambda pointer: None, deviceSynchronize=lambda: None))

    class RawModule:
        def __init__(self, code=None, *, path=None, options=(), name_expressions=None):
            assert code is None and isinstance(path, str)  # CuPy declares `str path`
            self.path = path

        def get_function(self, name):
            with open(self.path, "rb") as file:  # CuPy's cuModuleLoad reads the file here
                loads.append((file.read(), name))
            return lambda grid, block, args: saxpy_on(*args)
    cp.RawModule = RawModule
    return cp


def fake_cuda(monkeypatch, loads: list, old: bool):
    """cuda.core (1.x, or 0.1 under cuda.core.experimental when `old`) and cuda.bindings.driver."""
    np = pytest.importorskip("numpy")
    memory = {}
    driver = types.ModuleType("cuda.bindings.driver")
    driver.CUresult = SimpleNamespace(CUDA_SUCCESS=0)

    def alloc(nbytes):
        pointer = 0x1000 * (len(memory) + 1)
        memory[pointer] = np.zeros(nbytes, dtype=np.uint8)
        return 0, pointer

    def to_device(pointer, array, nbytes):
        memory[pointer][:] = array.view(np.uint8)
        return (0,)

    def to_host(array, pointer, nbytes):
        array.view(np.uint8)[:] = memory[pointer]
        return (0,)
    driver.cuMemAlloc, driver.cuMemcpyHtoD, driver.cuMemcpyDtoH = alloc, to_device, to_host

    def kernel(a, x, y, n):
        saxpy_on(a, memory[x].view(np.float32), memory[y].view(np.float32), n)

    class ObjectCode:
        def __init__(self, data, kind):
            assert isinstance(data, bytes) and kind == "cubin"
            self.data = data

        def get_kernel(self, name):
            loads.append((self.data, name))
            return kernel

    stream = SimpleNamespace(sync=lambda: None)
    core = types.ModuleType("cuda.core")
    core.Device = lambda ordinal=0: SimpleNamespace(set_current=lambda: None, default_stream=stream)
    if old:  # 0.1: no from_cubin, the stream in the LaunchConfig, launch(kernel, config, *args)
        core.LaunchConfig = lambda grid, block, stream=None: SimpleNamespace(grid=grid, block=block, stream=stream)
        core.launch = lambda kernel, config, *args: kernel(*args)
        core.ObjectCode = ObjectCode
        monkeypatch.setitem(sys.modules, "cuda.core.experimental", core)
        monkeypatch.setitem(sys.modules, "cuda.core", types.ModuleType("cuda.core"))  # no Device: too old
    else:
        core.LaunchConfig = lambda grid, block: SimpleNamespace(grid=grid, block=block)
        core.launch = lambda stream, config, kernel, *args: kernel(*args)
        core.ObjectCode = type("ObjectCode", (ObjectCode,), {"from_cubin": staticmethod(
            lambda data: ObjectCode(data, "cubin"))})
        monkeypatch.setitem(sys.modules, "cuda.core", core)
    monkeypatch.setitem(sys.modules, "cuda", types.ModuleType("cuda"))
    monkeypatch.setitem(sys.modules, "cuda.bindings", types.ModuleType("cuda.bindings"))
    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", driver)


@pytest.fixture
def image_file(tmp_path):
    (tmp_path / "saxpy.cu").write_text("// source")
    file = tmp_path / "images" / "saxpy.cubin"
    file.parent.mkdir()
    file.write_bytes(b"\x7fELF the cubin")
    return file


@pytest.mark.parametrize("path_name, old", [("cupy-cubin", False), ("cuda-core-cubin", False),
                                            ("cuda-core-cubin", True)])
def test_floor_paths_load_the_file_by_its_lowered_name_and_launch(worker, monkeypatch, tmp_path, image_file,
                                                                  path_name, old):
    import launch_paths
    loads = []
    monkeypatch.delitem(sys.modules, "kiln_example", raising=False)
    if path_name == "cupy-cubin":
        monkeypatch.setitem(sys.modules, "cupy", fake_cupy(loads))
    else:
        fake_cuda(monkeypatch, loads, old)
    image = launch_paths.ImageFile(str(image_file), LOWERED)
    result = worker.measure(path_name, "saxpy", tmp_path, 1000, image)  # exits if the result is wrong
    assert loads == [(b"\x7fELF the cubin", LOWERED)]
    assert "kiln_example" not in result["module_import_ms"] and "kiln_example" not in sys.modules
    assert set(result["module_import_ms"]) == (
        {"cupy"} if path_name == "cupy-cubin" else {"cuda.core.experimental" if old else "cuda.core",
                                                    "cuda.bindings.driver"} | ({"cuda.core"} if old else set()))
    assert result["image"] is None and result["path"] == path_name


def test_a_floor_path_refuses_to_run_without_its_image(worker):
    import launch_paths
    for name in ("cupy-cubin", "cuda-core-cubin"):
        assert launch_paths.PATHS[name].needs_image
        with pytest.raises(ValueError, match="loads the image file run.py writes"):
            launch_paths.PATHS[name](worker.cases.CASES["saxpy"], "// source")
    assert not any(launch_paths.PATHS[name].needs_image for name in report.PATHS if name not in report.FLOOR_PATHS)
    assert launch_paths.ImageFile("/x/block_sum_float_256.ptx", "_Z").kind == "ptx"


def test_object_code_follows_cuda_core_releases(worker):
    import launch_paths
    new = SimpleNamespace(ObjectCode=SimpleNamespace(from_cubin=lambda data: ("cubin", data),
                                                     from_ptx=lambda data: ("ptx", data)))
    assert launch_paths.object_code(new, b"x", "cubin") == ("cubin", b"x")
    assert launch_paths.object_code(new, b"x", "ptx") == ("ptx", b"x")
    old = SimpleNamespace(ObjectCode=lambda data, kind: ("0.1", data, kind))
    assert launch_paths.object_code(old, b"x", "cubin") == ("0.1", b"x", "cubin")


@pytest.mark.parametrize("argv, message", [
    (["--path", "cupy-cubin", "--kernel", "saxpy", "--kernel-dir", "/tmp"], "needs --image and --lowered-name"),
    (["--path", "cuda-core-cubin", "--kernel", "saxpy", "--kernel-dir", "/tmp", "--image", "/tmp/x.cubin"],
     "needs --image and --lowered-name"),
    (["--write-image", "/tmp"], "--write-image needs --kernel"),
])
def test_worker_arguments_for_the_floors(worker, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        worker.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_worker_passes_the_image_to_a_floor_path(worker, monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(worker, "measure", lambda *args: seen.append(args) or {"ok": 1})
    assert worker.main(["--path", "cuda-core-cubin", "--kernel", "saxpy", "--kernel-dir", "/k",
                        "--image", "/i/saxpy.cubin", "--lowered-name", LOWERED]) == 0
    assert seen[0][:4] == ("cuda-core-cubin", "saxpy", Path("/k"), worker.cases.DEFAULT_ELEMENTS)
    assert seen[0][4] == worker.paths.ImageFile("/i/saxpy.cubin", LOWERED) and seen[0][4].kind == "cubin"
    assert worker.main(["--path", "kiln-cupy", "--kernel", "saxpy", "--kernel-dir", "/k"]) == 0
    assert seen[1][4] is None
    assert json.loads(capsys.readouterr().out.splitlines()[0]) == {"ok": 1}


def real_image_class(monkeypatch):
    """kiln.Image from runtime/python (the binding the wheel vendors): importing it loads no library."""
    monkeypatch.syspath_prepend(str(REPO / "runtime" / "python"))
    try:
        return importlib.import_module("kiln._image").Image
    except ImportError as error:
        pytest.skip(f"runtime/python's kiln binding cannot be imported: {error}")


@pytest.mark.parametrize("kernel, kind, file_name", [("saxpy", "cubin", "saxpy.cubin"),
                                                     ("block_sum<float, 256>", "cubin", "block_sum_float_256.cubin"),
                                                     ("scale<float, 4>", "ptx", "scale_float_4.ptx")])
def test_write_image_writes_the_packages_image_for_device_0(worker, monkeypatch, tmp_path, capsys,
                                                             kernel, kind, file_name):
    Image = real_image_class(monkeypatch)
    asked = []

    class Package:
        def image(self, name, device=None, *, arch=None, driver_version=0):  # kiln.Package.image's signature
            asked.append((name, device, arch))
            return Image(b"\x7fELF" + name.encode(), kind, "sm_90", 90, name, "_Z_" + kind,
                         f"{kind} sm_90 (exact match)")
    wheel = types.ModuleType("kiln_example")
    wheel.package = Package
    monkeypatch.setitem(sys.modules, "kiln_example", wheel)
    assert worker.main(["--write-image", str(tmp_path / "images"), "--kernel", kernel]) == 0
    details = json.loads(capsys.readouterr().out)
    file = tmp_path / "images" / file_name
    assert asked == [(kernel, 0, None)]
    assert file.read_bytes() == b"\x7fELF" + kernel.encode()
    assert details == {"kernel": kernel, "file": str(file), "lowered_name": "_Z_" + kind, "kind": kind,
                       "target": "sm_90", "description": f"{kind} sm_90 (exact match)",
                       "bytes": len(b"\x7fELF" + kernel.encode())}


def test_write_image_refuses_an_unknown_kind(worker, monkeypatch, tmp_path):
    Image = real_image_class(monkeypatch)
    wheel = types.ModuleType("kiln_example")
    wheel.package = lambda: SimpleNamespace(image=lambda name, device=None: Image(
        b"?", "unknown kind 7", "", 90, name, "_Z", "?"))
    monkeypatch.setitem(sys.modules, "kiln_example", wheel)
    with pytest.raises(SystemExit, match="of kind 'unknown kind 7', not cubin or ptx"):
        worker.write_image("saxpy", tmp_path)
    assert list(tmp_path.iterdir()) == []


# open_cost.py: the table it prints from the processes' samples, a mode that cannot be imported, a
# process that fails or hangs, its argument checks, and open_sample.py's refusal of a mode it does not
# know (the timed processes themselves need the example wheel).

def _open_cost_samples(skipped_mode=None):
    def sample(mode, timeout):
        if mode == skipped_mode:
            return {"skipped": "No module named 'cupy'"}
        first = {"none": 130.0, "cupy": 170.0, "cuda.core": 200.0}[mode]
        return {"first_us": first, "second_us": first / 4, "objects": 20,
                "libcuda": [] if mode == "none" else ["/usr/lib/libcuda.so.1"]}
    return sample


def test_open_cost_tabulates_medians_per_process_kind(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(open_cost, "sample", _open_cost_samples())
    out = tmp_path / "open.md"
    monkeypatch.setattr(sys, "argv", ["open_cost.py", "--runs", "2", "--out", str(out)])
    assert open_cost.main() == 0
    printed = capsys.readouterr().out
    assert "| none | 130.0 | 32.5 | 20 | not loaded |" in printed
    assert "| cuda.core | 200.0 | 50.0 | 20 | /usr/lib/libcuda.so.1 |" in printed
    assert out.read_text() == printed


def test_open_cost_reports_a_mode_it_cannot_import_as_skipped(monkeypatch, capsys):
    monkeypatch.setattr(open_cost, "sample", _open_cost_samples(skipped_mode="cupy"))
    monkeypatch.setattr(sys, "argv", ["open_cost.py", "--runs", "1"])
    assert open_cost.main() == 0
    assert "| cupy | skipped: No module named 'cupy' | | | |" in capsys.readouterr().out


def test_open_cost_fails_naming_the_process_that_failed(monkeypatch):
    monkeypatch.setattr(process_json.subprocess, "run",
                        lambda *args, **kwargs: SimpleNamespace(returncode=1, stdout="", stderr="no kiln_example"))
    with pytest.raises(SystemExit, match="(?s)the none process: .*open_sample.py none exited 1\nno kiln_example"):
        open_cost.sample("none", 5)


def test_open_cost_fails_naming_the_process_that_took_too_long(monkeypatch):
    def run_too_long(command, **kwargs):
        raise subprocess.TimeoutExpired(command, kwargs["timeout"])
    monkeypatch.setattr(process_json.subprocess, "run", run_too_long)
    with pytest.raises(SystemExit, match="the cupy process: .*open_sample.py cupy took longer than 5 s"):
        open_cost.sample("cupy", 5)


@pytest.mark.parametrize("argv", [["--runs", "0"], ["--timeout", "0"], ["--timeout", "-1"]])
def test_open_cost_refuses_bad_arguments(monkeypatch, argv):
    monkeypatch.setattr(sys, "argv", ["open_cost.py", *argv])
    with pytest.raises(SystemExit) as exited:
        open_cost.main()
    assert exited.value.code == 2


@pytest.mark.parametrize("argv", [[], ["gpu"], ["none", "cupy"]])
def test_open_sample_refuses_what_is_not_one_mode(argv):
    done = subprocess.run([sys.executable, str(HERE / "open_sample.py"), *argv], capture_output=True, text=True,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 1 and "usage: open_sample.py none|cupy|cuda.core" in done.stderr
