import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { IntBetween, toInt } from './env-values';
import { ConfigError, loadConfig } from './load-config';

class Stacked {
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(20)
  VALUE = 15;
}

class Composed {
  @IntBetween(10, 20)
  VALUE = 15;
}

const problems = (schema: new () => object, value: string): string[] => {
  try {
    loadConfig(schema, { VALUE: value });
    return [];
  } catch (error) {
    return (error as ConfigError).problems;
  }
};

describe('IntBetween', () => {
  it('reads an integer in range as a number', () => {
    expect(loadConfig(Composed, { VALUE: ' 12 ' }).VALUE).toBe(12);
    expect(loadConfig(Composed, {}).VALUE).toBe(15);
  });

  it('refuses what the four decorators it stands for refuse, with the same words', () => {
    for (const value of ['9', '21', '12.5', 'twelve', '']) {
      const composed = problems(Composed, value);
      expect(composed).toHaveLength(1);
      expect(composed).toEqual(problems(Stacked, value));
    }
  });
});
