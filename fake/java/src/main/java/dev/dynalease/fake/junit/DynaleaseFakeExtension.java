package dev.dynalease.fake.junit;

import dev.dynalease.fake.DynaleaseFake;
import dev.dynalease.fake.FakeOptions;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.time.Instant;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension of dynalease-fake ({@code @ExtendWith(DynaleaseFakeExtension.class)}, or
 * {@link DynaleaseFakeTest}): a server for each test class (and its nested classes), started on a
 * free port before the class's first test and stopped after its last, reset before each test, and
 * handed to tests as parameters: the {@link DynaleaseFake} itself, and AWS SDK for Java v2 clients
 * for it when the SDK is on the class path.
 */
public final class DynaleaseFakeExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(DynaleaseFakeExtension.class);
    private static final String SERVER = "server";
    private static final String SDK_FACTORY = "dev.dynalease.fake.sdk.FakeClients";

    // The clients the SDK offers, by name, so that the SDK is loaded only when a test asks for one.
    private static final Set<String> SDK_CLIENTS = Set.of(
            "software.amazon.awssdk.services.dynamodb.DynamoDbClient",
            "software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient",
            "software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient",
            "software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient");

    @Override
    public void beforeAll(ExtensionContext context) {
        server(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        server(context).fake.reset();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == DynaleaseFake.class || SDK_CLIENTS.contains(type.getName());
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        Server server = server(context);
        if (type == DynaleaseFake.class) {
            return server.fake;
        }
        return server.client(type.getName());
    }

    /** The server of the test class, started at its first use and stopped with the class's context. */
    private static Server server(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        Server known = store.get(SERVER, Server.class);
        if (known != null) {
            return known;
        }
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(SERVER, key -> new Server(options(context)), Server.class);
    }

    private static FakeOptions options(ExtensionContext context) {
        FakeOptions options = FakeOptions.defaults();
        DynaleaseFakeTest settings = context.getTestClass()
                .flatMap(type -> AnnotationSupport.findAnnotation(type, DynaleaseFakeTest.class))
                .orElse(null);
        if (settings == null) {
            return options;
        }
        if (settings.manualClock()) {
            options.manualClock();
        }
        if (!settings.startTime().isEmpty()) {
            options.startTime(Instant.parse(settings.startTime()));
        }
        return options.seed(settings.seed());
    }

    /** A running server and the SDK clients made for it, closed with the context that holds it. */
    private static final class Server implements ExtensionContext.Store.CloseableResource {
        final DynaleaseFake fake;
        private Function<String, Object> clients;

        Server(FakeOptions options) {
            this.fake = DynaleaseFake.start(options);
        }

        /**
         * The SDK client of the type named {@code type}. The clients come from {@code
         * dev.dynalease.fake.sdk.FakeClients}, loaded by name at the first request, so that a test
         * class that asks for none needs no SDK on its class path.
         */
        @SuppressWarnings("unchecked")
        synchronized Object client(String type) {
            try {
                if (clients == null) {
                    clients = (Function<String, Object>) Class.forName(SDK_FACTORY)
                            .getConstructor(URI.class)
                            .newInstance(fake.endpoint());
                }
                return clients.apply(type);
            } catch (ReflectiveOperationException | LinkageError missing) {
                Throwable cause = missing instanceof InvocationTargetException ? missing.getCause() : missing;
                throw new ParameterResolutionException(type + " needs the AWS SDK for Java v2 on the class path"
                        + " (software.amazon.awssdk:dynamodb, and dynamodb-enhanced for the Enhanced Client): " + cause, cause);
            }
        }

        @Override
        public void close() throws Exception {
            try {
                if (clients instanceof AutoCloseable) {
                    ((AutoCloseable) clients).close();
                }
            } finally {
                fake.close();
            }
        }
    }
}
