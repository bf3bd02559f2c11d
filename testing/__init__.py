"""What the test suite and the benchmarks share: the scripted Messages API the
real ``claude`` CLI talks to offline (``mock_anthropic``), the model double that
answers only from what it was sent (``model_double``), and the scale-out
cluster harness (``cluster``, ``clients``, ``dbtool``, ``slow_claude``). Never
imported by the app."""
