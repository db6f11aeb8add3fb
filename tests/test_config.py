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
        assert env.startswith("SALIENCE_"), name
        assert len(help_text) > 10, name
