from pathlib import Path

import pytest

from salience.config import Config, describe
from salience.errors import ConfigError


def test_home_comes_from_salience_home_first(tmp_path: Path) -> None:
    env = {"SALIENCE_HOME": str(tmp_path / "a"), "XDG_DATA_HOME": str(tmp_path / "x")}
    assert Config.from_env(env).home == tmp_path / "a"


def test_home_falls_back_to_xdg_data_home(tmp_path: Path) -> None:
    assert Config.from_env({"XDG_DATA_HOME": str(tmp_path)}).home == tmp_path / "salience"


def test_home_defaults_to_local_share() -> None:
    assert Config.from_env({}).home == Path.home() / ".local" / "share" / "salience"


def test_db_path_is_inside_home(tmp_path: Path) -> None:
    assert Config(home=tmp_path).db_path == tmp_path / "salience.db"


def test_numeric_settings_are_read_and_checked() -> None:
    assert Config.from_env({"SALIENCE_MAX_CONTENT_BYTES": "100"}).max_content_bytes == 100
    with pytest.raises(ConfigError, match="SALIENCE_MAX_CONTENT_BYTES"):
        Config.from_env({"SALIENCE_MAX_CONTENT_BYTES": "lots"})
    with pytest.raises(ConfigError, match="positive"):
        Config.from_env({"SALIENCE_MAX_CONTENT_BYTES": "0"})


def test_every_setting_has_an_env_name_and_help() -> None:
    for name, env, help_text in describe():
        assert env.startswith(("SALIENCE_", "AIDE_MEMORY_")), name
        assert len(help_text) > 10, name


def test_config_file_then_environment(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        'profile = "aide"\nbriefing_budget = 800\nrae_half_life_hours = 12\n'
        "[rae_weights]\nsemantic = 0.5\nusage = 0.2\n",
        encoding="utf-8",
    )
    config = Config.from_env({"SALIENCE_HOME": str(tmp_path), "SALIENCE_BRIEFING_BUDGET": "900"})
    assert config.profile == "aide"
    assert config.briefing_budget == 900  # the environment wins over the file
    assert config.rae_half_life_hours == 12.0
    assert dict(config.rae_weights) == {
        "semantic": 0.5,
        "recency": 0.1,
        "importance": 0.2,
        "usage": 0.2,
    }


def test_for_home_reads_that_homes_file(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('profile = "eidet"\n', encoding="utf-8")
    assert Config.for_home(tmp_path, {}).profile == "eidet"
    assert Config.for_home(tmp_path, {"SALIENCE_PROFILE": "rae"}).profile == "rae"


def test_aide_switches_use_the_documents_variables() -> None:
    config = Config.from_env(
        {"AIDE_MEMORY_SCORING_DISABLED": "Yes", "AIDE_MEMORY_DECAY_DISABLED": "0"}
    )
    assert config.aide_scoring_disabled
    assert not config.aide_decay_disabled
    with pytest.raises(ConfigError, match="not true or false"):
        Config.from_env({"AIDE_MEMORY_DECAY_DISABLED": "maybe"})


def test_rae_weights_from_the_environment_are_checked() -> None:
    config = Config.from_env({"SALIENCE_RAE_WEIGHTS": "semantic=0.7, recency=0"})
    assert dict(config.rae_weights)["semantic"] == 0.7
    assert dict(config.rae_weights)["recency"] == 0.0
    with pytest.raises(ConfigError, match="unknown signal 'vibes'"):
        Config.from_env({"SALIENCE_RAE_WEIGHTS": "vibes=1"})
    with pytest.raises(ConfigError, match="signal=weight"):
        Config.from_env({"SALIENCE_RAE_WEIGHTS": "0.6"})
    with pytest.raises(ConfigError, match="not a finite number"):
        Config.from_env({"SALIENCE_RAE_WEIGHTS": "usage=nan"})


def test_bad_config_files_are_named(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("profile = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Config.from_env({"SALIENCE_HOME": str(tmp_path)})
    (tmp_path / "config.toml").write_text("colour = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown setting"):
        Config.from_env({"SALIENCE_HOME": str(tmp_path)})
