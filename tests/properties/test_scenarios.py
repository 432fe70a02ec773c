"""properties.scenarios: TOML scenario files are loaded with the check's quick defaults merged under the
scenario's parameters and seed 0 unless given."""

from __future__ import annotations


from contrastive_bounds.properties._scenarios import load_scenarios

def test_load_scenarios_merges_defaults(tmp_path, write_user_scenarios):
    """A scenario's parameters are merged over the check's quick defaults and its seed defaults to 0."""
    f = write_user_scenarios(tmp_path, '[[scenario]]\nname = "a"\ncheck = "user.square"\nparams = {x = 0.25}\n')
    (sc,) = load_scenarios(f)
    assert sc.params == {"x": 0.25, "bound": 1.0} and sc.seed == 0

