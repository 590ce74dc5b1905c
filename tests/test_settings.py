from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError


def test_defaults_when_nothing_is_set():
    settings = Settings.from_env({})
    assert settings.corpus_for(slack=True) == "catalogue"
    assert settings.corpus_for(slack=False) == "seeds"
    assert settings.port == 3000
    assert settings.database_url == "sqlite:///paperbot.db"
    assert settings.timezone == "UTC"
    assert settings.digest_time == "09:00"
    assert settings.scheduler_enabled is True
    assert settings.drain_seconds == 25.0
    assert settings.watch_seconds == 30.0
    assert settings.any_slack_variable is False


def test_saved_indexes_go_to_the_user_cache_unless_placed_or_turned_off(tmp_path):
    assert Settings.from_env({}).index_dir == Path("~/.cache/paperbot/index").expanduser()
    assert Settings.from_env({"PAPERBOT_INDEX_DIR": str(tmp_path)}).index_dir == tmp_path
    assert Settings.from_env({"PAPERBOT_INDEX_DIR": "OFF"}).index_dir is None


def test_blank_values_count_as_unset():
    settings = Settings.from_env({"SLACK_BOT_TOKEN": "  ", "PAPERBOT_CORPUS": ""})
    assert settings.slack_bot_token is None
    assert settings.corpus is None


def test_reads_every_variable():
    settings = Settings.from_env(
        {
            "SLACK_BOT_TOKEN": "xoxb-1",
            "SLACK_APP_TOKEN": "xapp-1",
            "SLACK_SIGNING_SECRET": "s3cret",
            "SLACK_API_URL": "http://127.0.0.1:9/api/",
            "PORT": "8080",
            "PAPERBOT_CORPUS": "catalogue",
            "PAPERBOT_DATABASE_URL": "sqlite:////tmp/x.db",
            "PAPERBOT_TIMEZONE": "Europe/Berlin",
            "PAPERBOT_DIGEST_CHANNEL": "C123",
            "PAPERBOT_DIGEST_TIME": "9:30",
            "PAPERBOT_SCHEDULER": "off",
            "PAPERBOT_DRAIN_SECONDS": "8.5",
            "PAPERBOT_WATCH_SECONDS": "5",
            "PAPERBOT_LOG_LEVEL": "debug",
        }
    )
    assert settings.drain_seconds == 8.5
    assert settings.watch_seconds == 5.0
    assert settings.port == 8080
    assert settings.corpus_for(slack=True) == settings.corpus_for(slack=False) == "catalogue"
    assert settings.timezone == "Europe/Berlin"
    assert settings.digest_channel == "C123"
    assert settings.scheduler_enabled is False
    assert settings.log_level == "DEBUG"
    assert settings.any_slack_variable is True


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PORT", "eighty"),
        ("PORT", "70000"),
        ("PAPERBOT_TIMEZONE", "Mars/Olympus"),
        ("PAPERBOT_SCHEDULER", "maybe"),
        ("PAPERBOT_DRAIN_SECONDS", "soon"),
        ("PAPERBOT_DRAIN_SECONDS", "-1"),
        ("PAPERBOT_DRAIN_SECONDS", "nan"),
        ("PAPERBOT_WATCH_SECONDS", "0"),
        ("PAPERBOT_WATCH_SECONDS", "often"),
    ],
)
def test_bad_values_name_the_variable(name, value):
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_dotenv_fills_unset_variables_only(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("PAPERBOT_CORPUS=catalogue\nPORT=4000\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PORT", "5000")
    # setenv first so monkeypatch restores the variable that load_dotenv will set.
    monkeypatch.setenv("PAPERBOT_CORPUS", "placeholder")
    monkeypatch.delenv("PAPERBOT_CORPUS")
    settings = Settings.from_env()
    assert settings.corpus == "catalogue"
    assert settings.port == 5000
