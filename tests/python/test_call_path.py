"""divbench.call_path: the cost of an indirect call's extra path from the calibration shapes, on a synthetic
folder (made-up numbers, written to a pytest temporary folder): the formula by hand, the median rule, a
shape that shared an SM left out, and the refusals (a run that already priced calls at a measured path)."""
import json

import pytest

from divbench import call_path
from divbench.jsonio import InputError

MANGLED = "_ZN37_GLOBAL__N__x_9_shapes_cu_main12shape_kernelINS_{}EEEvPKNS_4ItemEPfPxPiiNS_3AuxE"


def kernel(type_name, cycles_lost, extra_paths):
    return {"name": MANGLED.format(f"{len(type_name)}{type_name}"), "cycles_lost": cycles_lost,
            "branches": [{"pc": 0x2a0, "call": True, "extra_paths": extra_paths},
                         {"pc": 0x300, "call": False, "extra_paths": 7.0}]}


def write(folder, shapes, d_path=17.0, d_call=None):
    """shapes: (name, type, R, S, (est_random, paths_random), (est_sorted, paths_sorted), shared_sm) per launch."""
    folder.mkdir(exist_ok=True)
    (folder / "shapes_time.json").write_text(json.dumps({"shapes": [
        {"shape": n, "kernel": t, "shared_sm": sh, "random_median": r, "sorted_median": s}
        for n, t, r, s, _, _, sh in shapes]}))
    for i, order in enumerate(("random", "sorted")):
        ks = [kernel(t, 10 * v[4 + i][0], 10 * v[4 + i][1]) for v in shapes for t in [v[1]]]
        doc = {"device": {"name": "SYNTHETIC"}, "provenance": {"git": "synthetic"},
               "launches": {k["name"]: 10 for k in ks},
               "cost_model": {"divergent_path_cycles": d_path, "divergent_call_path_cycles": d_call}, "kernels": ks}
        (folder / f"shapes_{order}.json").write_text(json.dumps(doc))


def test_cost_per_extra_path_by_hand(tmp_path):
    # R - S = 5000; X_random = 3000 - 17 * 100 = 1300; X_sorted = 20 - 17 * 2 = -14; c = (5000 - 14 - 1300) / 98
    write(tmp_path, [("cal_call_2", "CalCall2", 15000.0, 10000.0, (3000.0, 100.0), (20.0, 2.0), 0)])
    doc = call_path.call_path(tmp_path)
    assert doc["schema"] == "divbench.call_path/1"
    assert doc["shapes"][0]["cycles_per_extra_path"] == pytest.approx((5000 - 14 - 1300) / 98)
    assert doc["summary"]["divergent_call_path_cycles"] == pytest.approx((5000 - 14 - 1300) / 98)
    assert doc["summary"]["d_path_cycles"] == 17.0


def test_median_and_a_shared_sm_left_out(tmp_path):
    # c = (R - S - (E_r - 17 e)) / e, nothing in the sorted order: X_r = 300 - 1700 = -1400, so R - S = 100 c - 1400
    # gives c = 50, 100, 150; the fourth shared an SM.
    shapes = [(f"cal_{c}", f"Cal{i}", 1000.0 + 100 * c - 1400, 1000.0, (300.0, 100.0), (0.0, 0.0), 0)
              for i, c in enumerate((50, 100, 150))]
    shapes.append(("cal_shared", "CalShared", 1e9, 0.0, (1.0, 1.0), (0.0, 0.0), 1))
    write(tmp_path, shapes)
    s = call_path.call_path(tmp_path)["summary"]
    assert (s["divergent_call_path_cycles"], s["min"], s["max"], s["shapes"]) == pytest.approx((100, 50, 150, 3))


def test_refuses_a_run_with_a_measured_call_path(tmp_path):
    write(tmp_path, [("cal_call_2", "CalCall2", 15000.0, 10000.0, (3000.0, 100.0), (20.0, 2.0), 0)], d_call=90.0)
    with pytest.raises(InputError, match="--call-path none"):
        call_path.call_path(tmp_path)


def test_no_usable_shape_is_an_error(tmp_path):
    write(tmp_path, [("cal_call_2", "CalCall2", 15000.0, 10000.0, (3000.0, 0.0), (20.0, 0.0), 0)])
    with pytest.raises(InputError, match="no calibration shape"):
        call_path.call_path(tmp_path)
