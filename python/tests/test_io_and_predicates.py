"""read_points, orient2d, __version__, cuda_available."""

import gc
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import exact
import wagener


def test_read_text_and_csv(tmp_path):
    (tmp_path / "seed.txt").write_text("3\n0 0\n1.5 -2\n1e300 4\n")
    points = wagener.read_points(tmp_path / "seed.txt")  # a pathlib.Path
    np.testing.assert_array_equal(points, [[0, 0], [1.5, -2], [1e300, 4]])
    assert points.dtype == np.float64 and points.flags.c_contiguous and points.flags.writeable
    (tmp_path / "wide.csv").write_text("id,X,y\n7,1,2\n8,3,4\n")
    np.testing.assert_array_equal(wagener.read_points(str(tmp_path / "wide.csv")), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(wagener.read_points(tmp_path / "wide.csv", columns=("y", 0)), [[2, 7], [4, 8]])
    single = wagener.read_points(tmp_path / "wide.csv", precision="float", format="csv")
    assert single.dtype == np.float32


@pytest.mark.parametrize("dtype,suffix,precision", [(np.float64, "f64", "double"), (np.float32, "f32", "float")])
def test_read_binary(tmp_path, dtype, suffix, precision, rng):
    points = rng.normal(size=(1000, 2)).astype(dtype)
    path = tmp_path / f"points.{suffix}"
    points.tofile(path)
    read = wagener.read_points(path, precision=precision)
    np.testing.assert_array_equal(read, points)
    assert read.dtype == dtype and read.flags.writeable
    read[0] = 0  # an ordinary array, not the file's mapping
    del read
    gc.collect()
    np.testing.assert_array_equal(wagener.read_points(path, precision=precision), points)
    widened = wagener.read_points(path, precision="double" if precision == "float" else "float")
    assert widened.dtype != dtype


def test_read_then_hull(tmp_path):
    (tmp_path / "square.txt").write_text("0 0\n2 0\n1 1\n2 2\n0 2\n")
    np.testing.assert_array_equal(wagener.convex_hull(wagener.read_points(tmp_path / "square.txt")),
                                  [[0, 0], [2, 0], [2, 2], [0, 2]])


def test_bad_files_name_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("0 0\n1 0\nnan 1\n")
    with pytest.raises(wagener.InputError, match=r"bad\.txt:3: .*non-finite"):
        wagener.read_points(path)
    with pytest.raises(ValueError, match="cannot open"):
        wagener.read_points(tmp_path / "missing.txt")
    truncated = tmp_path / "odd.f64"
    np.arange(3.0).tofile(truncated)
    with pytest.raises(ValueError, match=r"odd\.f64"):
        wagener.read_points(truncated)


def test_bad_read_options(tmp_path):
    (tmp_path / "p.txt").write_text("0 0\n")
    with pytest.raises(ValueError, match="precision"):
        wagener.read_points(tmp_path / "p.txt", precision="half")
    with pytest.raises(ValueError):
        wagener.read_points(tmp_path / "p.txt", format="xml")


def test_orient2d():
    assert wagener.orient2d((0, 0), (1, 0), (0, 1)) == 1
    assert wagener.orient2d((0, 0), (0, 1), (1, 0)) == -1
    assert wagener.orient2d((0, 0), (1, 1), (3, 3)) == 0
    assert wagener.orient2d(np.array([1e300, 1e300]), [-1e300, -1e300], (5e-324, 5e-324)) == 0
    with pytest.raises(ValueError, match="finite"):
        wagener.orient2d((0, 0), (1, np.nan), (0, 1))


def test_orient2d_is_exact_at_the_last_ulp(rng):
    """Near-collinear triples decided in the last bits, against exact fractions."""
    nonzero = 0
    for _ in range(2000):
        a = rng.uniform(0.5, 2, 2)
        b = a + rng.uniform(1, 8) * np.array([1.0, 1 / 3])
        c = np.array([np.nextafter(x, x + rng.integers(-1, 2)) for x in (a + b) / 2])
        expected = exact.orient(a, b, c)
        assert wagener.orient2d(a, b, c) == expected
        nonzero += expected != 0
    assert nonzero > 0


def test_orient2d_takes_coordinates_as_float64():
    third = Fraction(1, 3)
    assert float(third) != third  # so (0, 0), (3, 1), (1, 1/3 rounded) is not collinear
    assert wagener.orient2d((0, 0), (3, 1), (1, 1 / 3)) == exact.orient((0, 0), (3, 1), (1, 1 / 3)) != 0


def test_version_and_cuda_available():
    assert isinstance(wagener.__version__, str) and wagener.__version__.count(".") == 2
    assert isinstance(wagener.cuda_available(), bool)


def test_typing_stubs_ship_with_the_package():
    folder = Path(wagener.__file__).parent
    assert (folder / "py.typed").exists() and (folder / "__init__.pyi").exists()
