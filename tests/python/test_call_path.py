"""divbench.call_path: a call's round trip and the cost of an indirect call's extra path from the calibration
shapes, on a synthetic folder (made-up numbers, written to a pytest temporary folder): the formulas by
hand, the median rule, a shape that shared an SM left out, and the refusals (results that already priced
what is being measured)."""
import json

import pytest

from divbench import call_path
from divbench.jsonio import InputError

MANGLED = "_ZN37_GLOBAL__N__x_9_shapes_cu_main12shape_kernelINS_{}EEEvPKNS_4ItemEPfPxPiiNS_3AuxE"


def kernel(type_name, cycles_lost, extra_paths, modelled=0.0, calls=0):
    return {"name": MANGLED.format(f"{len(type_name)}{type_name}"), "cycles_lost": cycles_lost,
            "modelled_warp_cycles": modelled, "calls_executed": calls,
            "branches": [{"pc": 0x2a0, "call": True, "extra_paths": extra_paths},
                         {"pc": 0x300, "call": False, "extra_paths": 7.0}]}


def write(folder, shapes, d_path=17.0, d_call=None, prefix="shapes_", round_trip=None, direct=None):
    """shapes: (name, type, R, S, (est_random, paths_random), (est_sorted, paths_sorted), shared_sm) per launch."""
    folder.mkdir(exist_ok=True)
    direct = direct or []  # (name, type, T per order, modelled per order, calls per launch)
    (folder / "shapes_time.json").write_text(json.dumps({"shapes": [
        {"shape": n, "kernel": t, "shared_sm": sh, "random_median": r, "sorted_median": s}
        for n, t, r, s, _, _, sh in shapes] + [
        {"shape": n, "kernel": t, "shared_sm": 0, "random_median": tm[0], "sorted_median": tm[1]}
        for n, t, tm, _, _ in direct]}))
    for i, order in enumerate(("random", "sorted")):
        ks = [kernel(t, 10 * v[4 + i][0], 10 * v[4 + i][1]) for v in shapes for t in [v[1]]]
        ks += [kernel(t, 0.0, 0.0, 10 * m[i], 10 * c) for _, t, _, m, c in direct]
        doc = {"device": {"name": "SYNTHETIC"}, "provenance": {"git": "synthetic"},
               "launches": {k["name"]: 10 for k in ks},
               "cost_model": {"divergent_path_cycles": d_path, "divergent_call_path_cycles": d_call,
                              "call_round_trip_cycles": round_trip}, "kernels": ks}
        (folder / f"{prefix}{order}.json").write_text(json.dumps(doc))


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
    with pytest.raises(InputError, match="priced an indirect call's path already"):
        call_path.call_path(tmp_path)


def test_no_usable_shape_is_an_error(tmp_path):
    write(tmp_path, [("cal_call_2", "CalCall2", 15000.0, 10000.0, (3000.0, 0.0), (20.0, 0.0), 0)])
    with pytest.raises(InputError, match="no calibration shape"):
        call_path.call_path(tmp_path)


DIRECT = [("cal_direct_1", "CalDirect1", (1000.0, 1010.0), (600.0, 600.0), 32),
          ("cal_direct_4", "CalDirect4", (5200.0, 5270.0), (2000.0, 2000.0), 128)]


def test_round_trip_by_hand(tmp_path):
    # random: ((5200 - 1000) - (2000 - 600)) / 96 = 2800 / 96; sorted: ((5270 - 1010) - 1400) / 96 = 2860 / 96
    write(tmp_path, [], prefix="none_", direct=DIRECT)
    doc = call_path.round_trip(tmp_path)
    s = doc["summary"]
    assert s["divergent_call_path_cycles"] is None
    assert s["round_trip"]["per_order"]["random"]["cycles_per_call"] == pytest.approx(2800 / 96)
    assert s["call_round_trip_cycles"] == pytest.approx((2800 / 96 + 2860 / 96) / 2)


def test_round_trip_refuses_priced_results(tmp_path):
    write(tmp_path, [], prefix="none_", direct=DIRECT, round_trip=30.0)
    with pytest.raises(InputError, match="--call-path none"):
        call_path.round_trip(tmp_path)


def test_path_reports_the_round_trip_it_was_priced_with_and_the_residual(tmp_path):
    # priced with the round trip: the modelled cycles hold it, so the formula on them gives what is left (here 0).
    direct = [("cal_direct_1", "CalDirect1", (1000.0, 1000.0), (1000.0, 1000.0), 32),
              ("cal_direct_4", "CalDirect4", (4000.0, 4000.0), (4000.0, 4000.0), 128)]
    write(tmp_path, [("cal_call_2", "CalCall2", 15000.0, 10000.0, (3000.0, 100.0), (20.0, 2.0), 0)],
          round_trip=31.0, direct=direct)
    s = call_path.call_path(tmp_path)["summary"]
    assert s["call_round_trip_cycles"] == 31.0
    assert s["round_trip"]["residual"] == pytest.approx(0.0)
    assert [r["shape"] for r in call_path.call_path(tmp_path)["shapes"]] == ["cal_call_2"]


def test_main_needs_a_mode(capsys):
    assert call_path.main(["nope"]) == 2
