"""Small helpers shared by the AppTests (pages by file, metrics, dataframes by their columns)."""


def page(name):
    return f"pages/{name}.py"


def metrics(at):
    return {m.label: m.value for m in at.metric}


def no_exceptions(at):
    assert not at.exception, [e.value for e in at.exception]


def frame_with(at, *columns):
    """The first dataframe on the page that has these columns (dataframes have no widget key)."""
    for element in at.dataframe:
        value = element.value
        if set(columns) <= set(value.columns) | {value.index.name}:
            return value
    raise AssertionError(f"no dataframe with columns {columns}")
