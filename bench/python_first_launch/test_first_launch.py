"""Tests of the benchmark's machinery that need no GPU: arguments, the no-GPU exit, the cache checks,
the worker's validation on a host-only stand-in path, and the report from made-up samples.

    python3 -m pytest -p no:cacheprovider bench/python_first_launch      # numpy-less Pythons skip some
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gpu_probe  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402


def test_defaults_measure_every_kernel_and_path():
    args = run.parse_args([])
    assert args.runs == 15
    assert args.kernels == list(run.KERNELS)
    assert args.paths == list(report.PATHS)
    assert args.out.name == "python-first-launch.md" and args.raw == args.out.with_suffix(".json")


def test_repeated_kernels_are_measured_once():
    args = run.parse_args(["--kernel", "saxpy", "--kernel", "saxpy", "--out", "/tmp/x.md"])
    assert args.kernels == ["saxpy"] and args.raw == Path("/tmp/x.json")


@pytest.mark.parametrize("argv", [["--runs", "0"], ["--elements", "0"], ["--kernel", "nope"], ["--path", "nvcc"]])
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
def fake_worker(monkeypatch, writes: bool):
    def worker(args, extra, cache):
        if writes:
            (cache / f"{len(list(cache.iterdir()))}.cubin").write_bytes(b"x")
        return {"path": extra[1]}
    monkeypatch.setattr(run, "run_worker", worker)


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
            "loaded": {"libnvrtc": nvrtc}}


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

    def __init__(self, case, source):
        self.case, self.module_import_ms = case, {"numpy": 0.0}

    def import_modules(self): pass
    def init_cuda(self): pass
    def prepare(self): pass
    def get_kernel(self): pass
    def synchronize(self): pass
    def image_description(self): return "host"

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
