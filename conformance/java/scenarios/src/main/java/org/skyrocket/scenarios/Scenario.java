package org.skyrocket.scenarios;

/**
 * One client scenario: it drives the real Java client against the servers named in the
 * {@link Ctx} and throws (usually {@link Ctx#check}) on the first thing it did not receive as
 * expected. {@link ScenarioMain} prints one PASS or FAIL line per scenario.
 */
public interface Scenario {
    /** Body is the scenario's code. */
    interface Body {
        void run(Ctx c) throws Exception;
    }

    String name();

    void run(Ctx c) throws Exception;

    static Scenario of(String name, Body body) {
        return new Scenario() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void run(Ctx c) throws Exception {
                body.run(c);
            }
        };
    }
}
