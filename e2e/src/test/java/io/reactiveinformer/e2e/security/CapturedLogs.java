package io.reactiveinformer.e2e.security;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J binding of the e2e tests: drops everything (as no binding would) except while a test
 * {@link #start() captures}, when every logger of every library is at TRACE and each line, with the
 * stack trace of its throwable, is kept for the test to search.
 *
 * <p>Threading: loggers are called from any thread; the capture is synchronized.
 */
public final class CapturedLogs implements SLF4JServiceProvider {

    private static final List<String> lines = new ArrayList<>();
    private static volatile boolean capturing;

    private final ILoggerFactory loggers = CapturingLogger::new;
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    /** Starts capturing, from a clean slate. */
    public static synchronized void start() {
        lines.clear();
        capturing = true;
    }

    /** Stops capturing and returns what was logged meanwhile. */
    public static synchronized List<String> stop() {
        capturing = false;
        return List.copyOf(lines);
    }

    private static synchronized void add(String line) {
        if (capturing) {
            lines.add(line);
        }
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggers;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
    }

    private static final class CapturingLogger extends LegacyAbstractLogger {

        private static final long serialVersionUID = 1L;

        CapturingLogger(String name) {
            this.name = name;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                                                   Throwable throwable) {
            StringBuilder line = new StringBuilder().append(level).append(' ').append(name).append(" - ")
                    .append(MessageFormatter.basicArrayFormat(pattern, arguments));
            if (throwable != null) {
                StringWriter trace = new StringWriter();
                throwable.printStackTrace(new PrintWriter(trace));
                line.append('\n').append(trace);
            }
            add(line.toString());
        }

        @Override
        public boolean isTraceEnabled() {
            return capturing;
        }

        @Override
        public boolean isDebugEnabled() {
            return capturing;
        }

        @Override
        public boolean isInfoEnabled() {
            return capturing;
        }

        @Override
        public boolean isWarnEnabled() {
            return capturing;
        }

        @Override
        public boolean isErrorEnabled() {
            return capturing;
        }
    }
}
