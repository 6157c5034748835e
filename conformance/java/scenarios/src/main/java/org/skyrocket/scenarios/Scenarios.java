package org.skyrocket.scenarios;

import java.util.ArrayList;
import java.util.List;

/** The scenarios every client version runs, in the order ScenarioMain runs them. */
final class Scenarios {
    private Scenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> l = new ArrayList<>();
        l.addAll(SendScenarios.all());
        l.addAll(ConsumeScenarios.all());
        l.addAll(OffsetScenarios.all());
        l.addAll(TimerScenarios.all());
        l.add(Restart.first());
        return l;
    }
}
